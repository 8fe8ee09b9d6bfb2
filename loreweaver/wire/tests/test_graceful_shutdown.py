"""A process asked to stop (SIGTERM: a deploy, `docker compose stop`) lets the Keeper's
turn in flight finish, then sends its members away with a close that means "come
back"; they return to the restarted process and find nothing lost
(docs/operations.md, "A process is stopped normally")."""

from __future__ import annotations

import asyncio
import threading

import pytest
from websockets.exceptions import InvalidMessage

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.fake_llm import FakeLlm, Text, Wait
from loreweaver.testing.servers import keeper_model, start_serve


@pytest.fixture
def held_keeper():
    """A model whose first answer stops half-way until the test releases it."""
    release = threading.Event()
    fake = FakeLlm().start()
    fake.script(Text("The door creaks"), Wait(release), Text(" open."))
    for _ in range(8):
        fake.script(Text("The Keeper nods."))
    yield fake, release
    release.set()
    fake.stop()


def _texts(frames: list[dict]) -> list[str]:
    return [f["text"] for f in frames if f["type"] == "narrative"]


async def test_a_stopping_server_finishes_the_keepers_turn_then_sends_everyone_to_reconnect(
    fresh_env, held_keeper, room
):
    fake, release = held_keeper
    server = start_serve(fresh_env, **keeper_model(fake.url))
    keys = {name: fresh_env.mint(room, name) for name in ("Ann", "Bo")}
    ann, bo = await WsClient.connect(server.ws_url), await IrohClient.connect(server.ticket)
    try:
        await ann.join(keys["Ann"])
        await bo.join(keys["Bo"])
        await ann.say("I open the door.")
        await ann.expect("narrative_delta")  # the Keeper is answering

        server.terminate()
        await asyncio.to_thread(server.wait_for_log, "stopping: letting 1 turn(s) in flight finish")
        # No new connections while it stops: refused, or (when the listener's last accept
        # raced the close) closed before any HTTP answer.
        with pytest.raises((OSError, InvalidMessage)):
            await WsClient.connect(server.ws_url)
        await bo.say("Bo acts while the server stops.")
        refused = await bo.expect("system", level="warn")
        assert "Send it again once you are reconnected" in refused["text"]

        release.set()
        for member in (ann, bo):
            frames = await member.wait_closed(timeout=20)
            finished = [i for i, f in enumerate(frames) if f["type"] == "narrative" and f["speaker"] == "kp"]
            assert finished, "the Keeper's answer reached the member"
            assert frames[finished[-1]]["text"] == "The door creaks open."
            goodbye = frames[-1]
            assert goodbye["type"] == "system" and goodbye["level"] == "warn"
            assert "restarting" in goodbye["text"], "told why, after the answer"
        assert ann.close_code == 1012, "WebSocket: service restart, a close to come back after"
        closed = await asyncio.wait_for(bo.connection.closed(), 10)  # Iroh: the connection's reason
        assert "server restarting" in str(closed), closed
        assert await asyncio.to_thread(server.proc.wait, 30) == 0
    finally:
        await ann.close()
        await bo.close()
        server.stop()

    restarted = start_serve(fresh_env, **keeper_model(fake.url))
    try:
        again = await WsClient.connect(restarted.ws_url)
        told = _texts(await again.join(keys["Ann"]))
        await again.close()
        assert told[-2:] == ["I open the door.", "The door creaks open."], "nothing lost"
        assert "Bo acts while the server stops." not in told, "a refused line was not played"
    finally:
        restarted.stop()
