"""Fixtures every test package shares."""

from __future__ import annotations

import secrets

import pytest


@pytest.fixture
def room() -> str:
    """A room name no other test uses."""
    return f"room-{secrets.token_hex(4)}"


@pytest.fixture(params=["ws", "iroh"])
def carrier(request: pytest.FixtureRequest) -> str:
    """Run the test over each carrier."""
    return request.param
