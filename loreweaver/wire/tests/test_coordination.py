"""Presence, rate limits and the turn queue, on the store this run is configured with
(the local-memory cache on the embedded profile, Redis on the hosted one)."""

from __future__ import annotations

import asyncio
import time

from loreweaver.wire import coordination
from loreweaver.wire.coordination import Member


async def test_presence_lists_members_once_sorted_by_name(shared, room_id):
    await shared.presence_add(room_id, "c1", Member("tui:bbbbbbbb", "bob", "player"))
    await shared.presence_add(room_id, "c2", Member("tui:aaaaaaaa", "Ann", "keeper"))
    await shared.presence_add(room_id, "c3", Member("tui:bbbbbbbb", "bob", "player"))
    assert [m.name for m in await shared.online_members(room_id)] == ["Ann", "bob"]
    await shared.presence_remove(room_id, "c1")
    assert [m.name for m in await shared.online_members(room_id)] == ["Ann", "bob"]
    await shared.presence_remove(room_id, "c3")
    assert [m.name for m in await shared.online_members(room_id)] == ["Ann"]


async def test_presence_forgets_the_connections_of_a_dead_process(shared, room_id):
    await shared.presence_add(room_id, "mine", Member("tui:aaaaaaaa", "Ann", "player"))
    # What a killed process leaves: its connection's entry, and no heartbeat.
    await shared.store.hash_set(
        f"online:{room_id}", {"ghost": ["tui:cccccccc", "Ghost", "player", "dead-process"]}
    )
    # A missing heartbeat is confirmed before a process counts as dead (a Redis that
    # restarted empty has lost the live ones' too, for a heartbeat).
    first_look = time.monotonic()
    assert [m.name for m in await shared.online_members(room_id)] == ["Ann", "Ghost"]
    while [m.name for m in await shared.online_members(room_id)] != ["Ann"]:
        assert time.monotonic() - first_look < 3 * coordination.PROCESS_ABSENCE_CONFIRM
        await asyncio.sleep(0.05)
    assert time.monotonic() - first_look >= coordination.PROCESS_ABSENCE_CONFIRM


async def test_a_bucket_allows_its_burst_then_refuses(shared, room_id):
    buckets = [f"room:{room_id}", f"member:{room_id}:x"]
    results = [await shared.take_tokens(buckets, burst=3, refill_seconds=60) for _ in range(4)]
    assert results == [True, True, True, False]


async def test_a_refused_take_spends_nothing(shared, room_id):
    room, other_room = f"room:{room_id}", f"room:{room_id + 1}"
    x, y = f"member:{room_id}:x", f"member:{room_id}:y"
    limits = {"burst": 3, "refill_seconds": 60}
    assert await shared.take_tokens([room, x], **limits)
    assert await shared.take_tokens([room, x], **limits)  # x has 1 left, the room 1
    assert await shared.take_tokens([room, y], **limits)  # the room is empty now
    assert not await shared.take_tokens([room, x], **limits)  # refused by the room...
    assert await shared.take_tokens([other_room, x], **limits)  # ...without spending x's last
    assert not await shared.take_tokens([other_room, x], **limits)


async def test_a_bucket_refills_over_time(shared, room_id):
    buckets = [f"room:{room_id}"]
    assert await shared.take_tokens(buckets, burst=1, refill_seconds=0.2)
    assert not await shared.take_tokens(buckets, burst=1, refill_seconds=0.2)
    stored = await shared.store.get(f"bucket:room:{room_id}")
    # Age the bucket instead of sleeping: as if 0.2 s had passed.
    await shared.store.set(f"bucket:room:{room_id}", (stored[0], stored[1] - 0.2), 60)
    assert await shared.take_tokens(buckets, burst=1, refill_seconds=0.2)


async def test_turns_run_one_at_a_time_in_arrival_order(shared, room_id):
    order: list[str] = []
    running = 0
    peak = 0
    arrived = {name: asyncio.Event() for name in (f"t{n}" for n in range(6))}
    release = asyncio.Event()

    async def turn(name: str) -> None:
        nonlocal running, peak

        async def on_queued() -> None:
            arrived[name].set()

        async with shared.room_turn(room_id, name, on_queued):
            arrived[name].set()
            running += 1
            peak = max(peak, running)
            order.append(name)
            await release.wait()
            running -= 1

    tasks = []
    for name in arrived:
        tasks.append(asyncio.create_task(turn(name)))
        await arrived[name].wait()  # holds its ticket (or the turn) before the next arrives
    assert order == ["t0"], "the others are queued behind the first"
    release.set()
    await asyncio.gather(*tasks)
    assert order == list(arrived) and peak == 1


async def test_a_dead_holders_turn_is_skipped_after_its_lease_and_grace(shared, room_id):
    ticket = await shared.store.incr(f"turn:{room_id}:next")
    await shared.store.set(f"turn:{room_id}:serving", {"ticket": ticket, "since": time.time() - 60}, None)
    async with asyncio.timeout(5):
        async with shared.room_turn(room_id, "next"):
            assert (await shared.store.get(f"turn:{room_id}:lease"))["actor"] == "next"
