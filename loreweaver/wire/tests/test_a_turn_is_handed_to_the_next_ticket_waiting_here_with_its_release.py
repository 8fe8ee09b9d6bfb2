"""A turn that ends hands the room's turn to the next ticket when that ticket waits in
the same process, in the same step of the store as its release: the next turn starts
without a claim of its own, one round trip to Redis fewer for every queued input
(docs/architecture.md, "Several processes"). On the store this run is configured with."""

from __future__ import annotations

import asyncio
import time

import pytest

from loreweaver.wire import coordination
from loreweaver.wire.coordination import Coordination


def _count_claims(shared: Coordination, monkeypatch) -> list[int]:
    """The tickets that claimed the turn by themselves, as the store is asked."""
    claims: list[int] = []
    claim = shared.store.claim_turn

    async def counted(room_id: int, ticket: int, lease: dict) -> int | None:
        claims.append(ticket)
        return await claim(room_id, ticket, lease)

    monkeypatch.setattr(shared.store, "claim_turn", counted)
    return claims


async def _queue(shared: Coordination, room_id: int, names: list[str], body) -> list[asyncio.Task]:
    """A task per name, each holding its ticket (or the turn) before the next arrives."""
    tasks = []
    for name in names:
        arrived = asyncio.Event()

        async def turn(name: str = name, arrived: asyncio.Event = arrived) -> None:
            async def on_queued() -> None:
                arrived.set()

            async with shared.room_turn(room_id, name, on_queued):
                arrived.set()
                await body(name)

        tasks.append(asyncio.create_task(turn()))
        await arrived.wait()
    return tasks


async def test_queued_turns_here_start_without_claims_of_their_own(shared, room_id, monkeypatch):
    claims = _count_claims(shared, monkeypatch)
    order: list[str] = []
    leases: list[dict] = []
    release = asyncio.Event()

    async def body(name: str) -> None:
        order.append(name)
        leases.append(await shared.store.get(f"turn:{room_id}:lease"))
        await release.wait()

    names = [f"t{n}" for n in range(5)]
    tasks = await _queue(shared, room_id, names, body)
    release.set()
    async with asyncio.timeout(5):
        await asyncio.gather(*tasks)

    assert order == names
    assert len(claims) == 1, "only the first turn claimed; each later one was handed the turn"
    # Each turn ran under a lease of its own, naming it, as a claimed one does.
    assert [lease["actor"] for lease in leases] == names
    assert len({lease["id"] for lease in leases}) == len(names)
    assert await shared.store.get(f"turn:{room_id}:lease") is None


# The waiter leaves while the release is on its way: gone before the release returns
# (`gone`), or leaving as it is woken with the turn.
@pytest.mark.parametrize("gone", [True, False])
async def test_a_turn_handed_to_a_waiter_that_left_goes_on_to_the_one_after(
    shared, room_id, monkeypatch, gone
):
    release = shared.store.release_turn
    waiting: dict[str, asyncio.Task] = {}
    ran: list[str] = []
    let_go = asyncio.Event()

    async def release_then_leave(room_id: int, ticket: int, following: dict | None = None) -> bool | None:
        handed = await release(room_id, ticket, following)
        if handed and following["actor"] == "leaves":
            waiting["leaves"].cancel()  # its member left while the release was on its way
            if gone:
                await asyncio.sleep(0)  # its task ends first
        return handed

    monkeypatch.setattr(shared.store, "release_turn", release_then_leave)

    async def body(name: str) -> None:
        ran.append(name)
        if name == "first":
            await let_go.wait()

    tasks = await _queue(shared, room_id, ["first", "leaves", "next"], body)
    waiting["leaves"] = tasks[1]
    started = time.monotonic()
    let_go.set()
    async with asyncio.timeout(5):
        await asyncio.gather(tasks[0], tasks[2])
    with pytest.raises(asyncio.CancelledError):
        await tasks[1]

    assert ran == ["first", "next"]
    # Not after the handed lease lapsed (coordination.TURN_LEASE_TTL): at once.
    assert time.monotonic() - started < 2
    assert await shared.store.get(f"turn:{room_id}:lease") is None


async def test_the_store_hands_the_turn_only_to_a_ticket_its_process_drew(shared, room_id):
    store = shared.store
    first = await store.draw_ticket(room_id, coordination.PROCESS_ID)
    lease = {"ticket": first, "actor": "first", "process": coordination.PROCESS_ID, "id": "a"}
    assert await store.claim_turn(room_id, first, lease) == first
    other = await store.draw_ticket(room_id, "another-process")
    assert other == first + 1
    pretended = {"ticket": other, "actor": "other", "process": coordination.PROCESS_ID, "id": "b"}

    assert await store.release_turn(room_id, first, pretended) is False

    # Released all the same: the next ticket is served, and claims the turn itself.
    assert await store.get(f"turn:{room_id}:lease") is None
    assert (await store.get(f"turn:{room_id}:serving"))["ticket"] == other
