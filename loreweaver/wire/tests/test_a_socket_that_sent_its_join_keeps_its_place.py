"""Only a silent socket gives way to a newcomer (docs/operations.md, "Admission"): a
socket that has sent its join keeps its place while its key is checked, however full
the server is, and is welcomed; a newcomer then gets `too_many_connections`. Here the
handshake budget is one place, a silent socket gives way at once (no grace), and the
check is held midway (the failpoint `join.check@hold`, which holds the database's
thread: the newcomer comes over Iroh, whose connections reach the gate without it)."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import dedicated_server, release_failpoint

held_check = dedicated_server(
    TRPG_TUI__HANDSHAKE_CONNECTIONS="1",
    TRPG_TUI__CROWDED_JOIN_TIMEOUT="0",
    TRPG_FAILPOINTS="join.check@hold",
)


def _answers(frames: list[dict]) -> list[tuple[str, str | None]]:
    return [(frame["type"], frame.get("code")) for frame in frames]


async def test_a_silent_socket_gives_way_and_a_join_being_checked_does_not(held_check, room):
    server = held_check
    silent = await WsClient.connect(server.ws_url, source="127.0.0.2")
    patient = await WsClient.connect(server.ws_url, source="127.0.0.3")
    given_way = await silent.wait_closed()
    assert _answers(given_way) == [("error", "join_timeout")]
    assert "full" in given_way[0]["message"], "it says why it was closed before the join timeout"

    await patient.send({"type": "join", "key": server.env.mint(room, "Patient")})
    await asyncio.to_thread(server.wait_for_log, "failpoint join.check holds", 30)
    try:
        async with await IrohClient.connect(server.ticket, first="", source="127.0.0.4") as newcomer:
            assert _answers(await newcomer.wait_closed()) == [("error", "too_many_connections")]
    finally:
        release_failpoint(server, "join.check")
    async with patient:
        assert (await patient.recv())["type"] == "welcome"
