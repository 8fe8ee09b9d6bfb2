"""Fixtures of the tests that use the turn queue and presence directly, on the store
this run is configured with."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest

from loreweaver.testing.servers import heartbeating
from loreweaver.wire import coordination
from loreweaver.wire.coordination import Coordination


@pytest.fixture
async def shared() -> AsyncIterator[Coordination]:
    """This process's coordination, with this process alive to it throughout the test."""
    async with heartbeating(coordination.shared()) as shared:
        yield shared


@pytest.fixture
def room_id() -> int:
    """A room of this test's own (the store may be shared with other test workers)."""
    return secrets.randbelow(10**9) + 10**9
