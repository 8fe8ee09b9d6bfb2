"""Rate limits and the turn queue hold across processes whose clocks disagree: a bucket
refills, and a ticket's wait is measured, on Redis's clock, not on the clock of whoever
looks (docs/operations.md, "A process
stalls, or its clock is wrong").

The machine's own clock may jump while a test runs (a paused virtual machine whose
wall clock is set forward when it resumes; the monotonic clock is not), so the times
these tests rely on are kept far longer than such a jump and far shorter than the hour
a wrong clock is off by."""

from __future__ import annotations

import asyncio
import secrets
import time

import pytest
from django.conf import settings

from loreweaver.testing.servers import heartbeating, hosted_profile
from loreweaver.wire import coordination
from loreweaver.wire.coordination import Coordination
from loreweaver.wire.stores import RedisStore

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="one process has one clock")


async def test_a_bucket_whose_callers_clocks_disagree_admits_only_its_burst(monkeypatch):
    here = coordination.shared()
    elsewhere = Coordination(RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX))  # another process
    real_time = time.time
    bucket = [f"room:{secrets.randbelow(10**9)}"]

    async def take(caller: Coordination, skew: float) -> bool:
        """One take by `caller`, whose clock is `skew` seconds off while it takes."""
        monkeypatch.setattr(time, "time", lambda: real_time() + skew)
        try:
            return await caller.take_tokens(bucket, burst=3, refill_seconds=600)
        finally:
            monkeypatch.setattr(time, "time", real_time)

    try:
        # An hour ahead would refill the bucket at once; an hour behind would starve it.
        takes = [(here, 0), (elsewhere, 3600), (here, 0), (elsewhere, -3600), (elsewhere, 3600)]
        assert [await take(caller, skew) for caller, skew in takes] == [True, True, True, False, False]
    finally:
        await elsewhere.store.close()


async def test_a_waiter_whose_clock_runs_ahead_does_not_skip_a_live_ticket(monkeypatch):
    """The ticket being served belongs to a live process that has not claimed it yet
    (it was just drawn): a waiter whose clock is an hour ahead still waits for it."""
    monkeypatch.setattr(coordination, "TURN_CLAIM_GRACE", 600.0)  # far below the hour
    shared = coordination.shared()
    room_id = secrets.randbelow(10**9) + 10**9
    async with heartbeating(shared):  # the ticket's process is alive throughout
        ticket = await shared.store.draw_ticket(room_id, coordination.PROCESS_ID)
        real_time = time.time  # the test's clock is Redis's (one machine)
        await shared.store.set(f"turn:{room_id}:serving", {"ticket": ticket, "since": real_time()}, None)
        monkeypatch.setattr(time, "time", lambda: real_time() + 3600)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(1):  # well within the claim grace on Redis's clock
                async with shared.room_turn(room_id, "ahead"):
                    pytest.fail("the live ticket was skipped")
