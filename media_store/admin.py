"""Media admin arrives with the media issue."""
