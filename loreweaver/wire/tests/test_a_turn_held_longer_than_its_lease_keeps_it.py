"""A turn renews its lease while it runs (a Keeper's answer can take longer than the
lease), and stops renewing once it ends: on the store this run is configured with.
Leases of a second here make the long turn short (docs/architecture.md, "Several
processes")."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator

import pytest

from loreweaver.testing.servers import heartbeating
from loreweaver.wire import coordination, stores, turn_holds
from loreweaver.wire.coordination import Coordination


@pytest.fixture
async def shared(monkeypatch) -> AsyncIterator[Coordination]:
    monkeypatch.setattr(coordination, "TURN_LEASE_TTL", 1)
    monkeypatch.setattr(stores, "TURN_LEASE_TTL", 1)
    monkeypatch.setattr(turn_holds, "TURN_LEASE_TTL", 1)
    async with heartbeating(coordination.shared()) as shared:
        yield shared


async def test_a_turn_held_three_leases_long_keeps_its_lease_and_leaves_none(shared):
    room_id = secrets.randbelow(10**9) + 10**9
    lease_key = f"turn:{room_id}:lease"
    async with asyncio.timeout(10):
        async with shared.room_turn(room_id, "Ann"):
            ends = time.monotonic() + 3
            while time.monotonic() < ends:  # the turn's own length: three leases
                assert (await shared.store.get(lease_key))["actor"] == "Ann"
                await asyncio.sleep(0.1)
        assert await shared.store.get(lease_key) is None
        # A renewal period later, nothing renewed a lease for the turn that ended.
        await asyncio.sleep(coordination.TURN_LEASE_TTL / 2)
        assert await shared.store.get(lease_key) is None
