"""A join replay longer than the send queue's bound reaches the joiner whole: the bound
is for live frames a client does not read, not for the history the operator asked to
replay (TRPG_REPLAY__ENTRIES); live frames after it are held to the bound as before."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, human_keeper_narrates, settle
from loreweaver.testing.servers import dedicated_server

QUEUE = 32
LINES = 3 * QUEUE

long_replay_server = dedicated_server(TRPG_TUI__SEND_QUEUE=str(QUEUE), TRPG_REPLAY__ENTRIES="1000")


async def test_a_joiner_gets_a_replay_three_times_the_send_queue(long_replay_server, room):
    env = long_replay_server.env
    await human_keeper_narrates(long_replay_server, room)
    async with await WsClient.connect(long_replay_server.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))
        for n in range(LINES):
            await kay.say(f"Line {n} of the long night.")
            await kay.expect("narrative", text=f"Line {n} of the long night.")

    async with await WsClient.connect(long_replay_server.ws_url) as late:
        joined = await late.join(env.mint(room, "Lee"))
        told = [frame["text"] for frame in joined if frame["type"] == "narrative"]
        assert [f"Line {n} of the long night." for n in range(LINES)] == [
            t for t in told if t.startswith("Line")
        ]
        await late.say("I made it through the whole night.")
        assert (await late.expect("narrative", text="I made it through the whole night."))["name"] == "Lee"
        await settle(late)
