"""Whatever stage of a connection fails, the connection gives back its slot, its
presence and its room (docs/operations.md, "Hostile input").

Each carrier gets a server started with failpoints (`base.failpoints`): each
stage of a join and of a joined connection fails once, and every step of every
teardown fails throughout, so the process's upkeep must take back what the teardowns
could not. The cap is two connections: a single leaked slot would turn one of the
last two joins away.
"""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

JOIN_STAGES = ["join.lookup", "join.attach", "join.presence", "join.replay"]
LATER_STAGES = ["frame.route", "input.turn", "input.keeper"]
TEARDOWN_STAGES = ["close.detach", "close.presence", "close.announce"]
CAP = 2


@pytest.fixture(scope="module", params=["ws", "iroh"])
def faulty(request, tmp_path_factory):
    """(carrier, a server whose every stage fails as described above)."""
    env = create_env(tmp_path_factory.mktemp("faulty"), hosted=hosted_profile())
    failing = [f"{stage}*1" for stage in JOIN_STAGES + LATER_STAGES]
    failing += [f"{stage}*1000" for stage in TEARDOWN_STAGES]
    process = start_serve(env, TRPG_TUI__MAX_CONNECTIONS=str(CAP), TRPG_FAILPOINTS=",".join(failing))
    yield request.param, process
    process.stop()
    destroy_env(env)


async def test_a_failure_at_any_stage_leaks_no_slot_and_no_presence(faulty, room):
    carrier, server = faulty
    env = server.env
    for stage in JOIN_STAGES:
        client = await connect(carrier, server)
        await client.send({"type": "join", "key": env.mint(room, f"Unlucky at {stage}")})
        frames = await client.wait_closed()
        await client.close()
        assert [(f["type"], f.get("code")) for f in frames if f["type"] == "error"] == [
            ("error", "server_error")
        ], stage

    async with await connect(carrier, server) as survivor:
        await survivor.join(env.mint(room, "Survivor"))
        await survivor.send({"type": "ping", "t": 1})  # frame.route fails
        assert (await survivor.expect("error"))["code"] == "server_error"
        await survivor.send({"type": "ping", "t": 2})
        assert (await survivor.expect("pong"))["t"] == 2
        await survivor.say("first try")  # input.turn fails, and must give the turn back
        assert (await survivor.expect("error"))["code"] == "server_error"
        await survivor.say("second try")  # stored, then input.keeper fails after the commit
        after = await survivor.collect_until("system")
        assert [f.get("text") for f in after if f["type"] == "narrative"] == ["second try"]
        assert not [f for f in after if f["type"] == "error"], "a committed line is never reported failed"
        assert after[-1]["level"] == "warn"
        await survivor.say("third try")
        assert (await survivor.expect("narrative"))["text"] == "third try"

    first, second = await connect(carrier, server), await connect(carrier, server)
    try:
        joins = await asyncio.gather(
            first.join(env.mint(room, "First")), second.join(env.mint(room, "Second"))
        )
        assert [frames[0]["type"] for frames in joins] == ["welcome", "welcome"]
        settled = await second.expect("presence", online=2, timeout=10)
        assert sorted(p["name"] for p in settled["players"]) == ["First", "Second"]
    finally:
        await first.close()
        await second.close()
