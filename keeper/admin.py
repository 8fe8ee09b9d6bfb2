"""Keeper admin arrives with later issues."""
