"""One turn at a time per room, FIFO, across processes (docs/decisions.md, "Turns and commands").

The test process holds the room's turn through the same Redis the servers use, as a
third process would, so the waiting is real and the release is under the test's control.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import coordination_of, holding_the_turn, room_id_of, start_serve


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
        holding = asyncio.Event()
        release = asyncio.Event()

        async def hold():
            async with holding_the_turn(env, room):
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
        # Each line's turn (with the Keeper's answer) ends before the next line's starts.
        heard = [(await second.expect("narrative", speaker="player"))["text"] for _ in range(2)]
    assert heard == ["one", "two"]


async def test_a_turn_held_by_a_killed_process_is_skipped_within_seconds(hosted_server, room):
    env = hosted_server.env
    key = env.mint(room, "Patient")
    async with await WsClient.connect(hosted_server.ws_url) as client:
        await client.join(key)
        store = coordination_of(env).store
        room_id = room_id_of(env, room)
        # What a process leaves behind when it is killed holding the turn: its ticket
        # and its lease (still minutes from running out), and no heartbeat.
        ticket = await store.incr(f"turn:{room_id}:next")
        await store.set(f"turn:{room_id}:owner:{ticket}", "killed-process", 3600)
        await store.set(f"turn:{room_id}:serving", {"ticket": ticket, "since": time.time()}, None)
        await store.set(
            f"turn:{room_id}:lease", {"ticket": ticket, "actor": "Crashed", "process": "killed-process"}, 600
        )
        started = time.monotonic()
        await client.say("still playable")
        line = await client.expect("narrative", timeout=20)
    assert line["text"] == "still playable"
    assert time.monotonic() - started < 5, "a dead holder's lease does not hold the room"
