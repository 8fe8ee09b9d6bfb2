"""Which silent socket gives way to a newcomer when the server is full
(docs/operations.md, "Admission"): one of an address that holds at least two more
handshake places than the newcomer's at once, its oldest; one of the newcomer's own
address (every client behind one proxy, say) once it has been silent for longer than
`TRPG_TUI__CROWDED_JOIN_TIMEOUT`. Here the handshake budget and each address's share
are three places, and the grace is three seconds."""

from __future__ import annotations

import asyncio
import time

from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import connections_settle
from loreweaver.testing.servers import dedicated_server

PLACES = 3
GRACE = 3.0

crowded_server = dedicated_server(
    TRPG_TUI__HANDSHAKE_CONNECTIONS=str(PLACES),
    TRPG_TUI__HANDSHAKES_PER_ADDRESS=str(PLACES),
    TRPG_TUI__CROWDED_JOIN_TIMEOUT=str(GRACE),
)


async def _first_answer(server, source: str, key: str) -> str:
    async with await WsClient.connect(server.ws_url, source=source) as player:
        await player.send({"type": "join", "key": key})
        first = await player.recv()
    return first.get("code", first["type"])


async def _closed_with(socket: WsClient) -> list[str]:
    return [frame.get("code", frame["type"]) for frame in await socket.wait_closed()]


async def test_a_newcomer_takes_the_place_of_the_oldest_silent_socket_of_a_richer_address(
    crowded_server, room
):
    key = crowded_server.env.mint(room, "Newcomer")
    opened = time.monotonic()
    silent = [await WsClient.connect(crowded_server.ws_url, source="127.0.0.2") for _ in range(PLACES)]
    try:
        assert await _first_answer(crowded_server, "127.0.0.3", key) == "welcome"
        assert time.monotonic() - opened < GRACE, "it took the place of a socket silent for only a moment"
        assert await _closed_with(silent[0]) == ["join_timeout"]
    finally:
        for socket in silent:
            await socket.close()
    assert await connections_settle(crowded_server, "ws", 0) == 0


async def test_one_address_takes_the_place_of_its_own_silent_socket_after_the_grace(crowded_server, room):
    key = crowded_server.env.mint(room, "Behind the same proxy")
    silent = [await WsClient.connect(crowded_server.ws_url, source="127.0.0.4") for _ in range(PLACES)]
    opened = time.monotonic()
    try:
        assert await _first_answer(crowded_server, "127.0.0.4", key) == "too_many_connections"
        # The grace is the server's rule: the sockets are old enough once it has passed.
        await asyncio.sleep(max(0.0, opened + GRACE + 0.1 - time.monotonic()))
        assert await _first_answer(crowded_server, "127.0.0.4", key) == "welcome"
        assert await _closed_with(silent[0]) == ["join_timeout"]
    finally:
        for socket in silent:
            await socket.close()
    assert await connections_settle(crowded_server, "ws", 0) == 0
