"""One turn at a time per room, FIFO, across processes (checklist 163; DECISIONS "Turns").

The test process holds the room's turn through the same Redis the servers use, as a
third process would, so the waiting is real and the release is under the test's control.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from rooms.tests.clients import IrohClient, WsClient
from rooms.tests.servers import coordination_of, room_id_of, start_serve


@pytest.fixture(scope="module")
def hosted_server(hosted_env):
    process = start_serve(hosted_env)
    yield process
    process.stop()


async def test_an_input_to_a_busy_room_waits_with_a_private_notice_then_runs_in_order(hosted_server, room):
    env = hosted_server.env
    first_key, second_key = env.mint(room, "First"), env.mint(room, "Second")
    async with (
        await WsClient.connect(hosted_server.ws_url) as first,
        await IrohClient.connect(hosted_server.ticket) as second,
    ):
        await first.join(first_key)
        await second.join(second_key)
        coordination = coordination_of(env)
        holding = asyncio.Event()
        release = asyncio.Event()

        async def hold():
            async with coordination.room_turn(room_id_of(env, room), "Someone else"):
                holding.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await holding.wait()
        await first.say("one")
        notice = await first.expect("system")
        assert notice["level"] == "info" and "queued" in notice["text"]
        await second.say("two")
        assert (await second.expect("system"))["level"] == "info"
        await second.send({"type": "ping", "t": 0})
        waiting = await second.collect_until("pong")
        assert not [f for f in waiting if f["type"] == "narrative"], "nothing runs while the turn is held"
        release.set()
        await holder
        heard = [(await second.expect("narrative"))["text"] for _ in range(2)]
    assert heard == ["one", "two"]


async def test_a_turn_held_by_a_dead_process_is_skipped(hosted_server, room):
    env = hosted_server.env
    key = env.mint(room, "Patient")
    async with await WsClient.connect(hosted_server.ws_url) as client:
        await client.join(key)
        store = coordination_of(env).store
        room_id = room_id_of(env, room)
        # What a process leaves behind when it dies holding the turn: it was served a
        # while ago, and its lease is about to run out with nobody renewing it.
        ticket = await store.incr(f"turn:{room_id}:next")
        await store.set(f"turn:{room_id}:serving", {"ticket": ticket, "since": time.time() - 60}, None)
        await store.set(f"turn:{room_id}:lease", {"ticket": ticket, "actor": "Crashed"}, 1)
        await client.say("still playable")
        assert (await client.expect("system"))["level"] == "info"  # queued behind the dead turn
        line = await client.expect("narrative", timeout=20)
    assert line["text"] == "still playable"
