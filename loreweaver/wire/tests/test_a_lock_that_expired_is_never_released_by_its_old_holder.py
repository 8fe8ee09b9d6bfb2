"""A cross-process lock that outlived its holder (a stall longer than its TTL) and was
taken by another stays the new holder's: the old holder's release is one
compare-and-delete, on the store this run is configured with (docs/operations.md, "A
process stalls, or its clock is wrong")."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from loreweaver.wire import coordination
from loreweaver.wire.coordination import Coordination


@pytest.fixture
def shared() -> Coordination:
    return coordination.shared()


@pytest.fixture
def name() -> str:
    return f"test-lock-{secrets.token_hex(6)}"


async def _still_held(shared: Coordination, name: str) -> bool:
    """Whether somebody holds the lock: a take of the key by a stranger is refused."""
    taken = await shared.store.add(f"mutex:{name}", "a stranger", 5)
    if taken:
        await shared.store.delete(f"mutex:{name}")
    return not taken


async def test_a_holder_that_outlived_its_lock_leaves_the_next_holders_in_place(shared, name):
    b_holds, b_done = asyncio.Event(), asyncio.Event()

    async def b() -> None:
        async with shared.mutex(name):
            b_holds.set()
            await b_done.wait()

    async with shared.mutex(name, ttl=1):
        taker = asyncio.create_task(b())
        async with asyncio.timeout(5):
            await b_holds.wait()  # only once A's lock expired
    assert await _still_held(shared, name), "A's release took B's lock"
    b_done.set()
    await taker
    assert not await _still_held(shared, name)


async def test_a_holder_that_stalls_in_its_release_leaves_the_next_holders_in_place(
    shared, name, monkeypatch
):
    """A stall in the middle of A's release (a pause after any of its store calls on
    the lock) lasts until A's lock expired and B took it."""
    b_holds, b_done, a_leaving = asyncio.Event(), asyncio.Event(), asyncio.Event()
    key = f"mutex:{name}"
    for method in ("get", "delete", "unlock"):
        real = getattr(shared.store, method, None)
        if real is None:
            continue

        async def stalled(*args, real=real):
            result = await real(*args)
            if a_leaving.is_set() and args[0] == key and not b_holds.is_set():
                async with asyncio.timeout(5):
                    await b_holds.wait()
            return result

        monkeypatch.setattr(shared.store, method, stalled)

    async def b() -> None:
        async with shared.mutex(name):
            b_holds.set()
            await b_done.wait()

    async with shared.mutex(name, ttl=1):
        taker = asyncio.create_task(b())
        a_leaving.set()
    async with asyncio.timeout(5):
        await b_holds.wait()
    assert await _still_held(shared, name), "A's release took B's lock"
    b_done.set()
    await taker
