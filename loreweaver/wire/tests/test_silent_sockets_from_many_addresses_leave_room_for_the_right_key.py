"""Silent sockets cannot lock the table out (docs/operations.md, "Admission"): a flood
of sockets that never send their join, from a few addresses, fills the handshake
budget, and a right key from another address is still welcomed within a second, again
and again while the flood lasts, over WebSocket and over Iroh. The flood's sockets are
the ones closed to make room (`error join_timeout`), and every place is given back
when it stops.

The server keeps its real default budget (150 handshakes of a cap of 200, 64 per
address): three addresses with 60 silent sockets each overflow it, as they did when
they locked new joins out.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time

import pytest
import websockets
from iroh import IrohError

from loreweaver.testing.clients import Closed, IrohClient, WsClient, iroh_dial, iroh_endpoint
from loreweaver.testing.metrics import connections_settle
from loreweaver.testing.servers import dedicated_server

ATTACKERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
PER_ATTACKER = 60  # 180 silent sockets: more than the default handshake budget (150)
PLAYER = "127.0.0.5"
# The flood opens its sockets again as soon as the join timeout (10 s) has closed them.
WAVES = 2
# Seconds into the flood a right key joins: the first three are when it was refused.
PROBES = (1.0, 4.0, 8.0, 11.0, 14.0, 18.0)
WELCOMED_WITHIN = 1.0

flooded_server = dedicated_server()


async def _silent_websocket(url: str, source: str, answers: list[str]) -> None:
    """One socket of the flood: connect from `source`, say nothing, and hold on until
    the server closes it; what the server said first."""
    try:
        socket = await WsClient.connect(url, source=source)
    except (OSError, websockets.InvalidHandshake, TimeoutError):
        answers.append("not connected")
        return
    async with socket:
        frames = await socket.wait_closed(timeout=30)
    answers.append(frames[0].get("code", "") if frames else "closed")


async def _silent_iroh(endpoint, ticket: str, answers: list[str]) -> None:
    """The same over Iroh: a connection whose control stream carries a blank line (so
    the server sees it) and never a join."""
    try:
        connection, stream = await iroh_dial(endpoint, ticket)
    except (IrohError, TimeoutError):
        answers.append("not connected")
        return
    # Not closed with `close()`, which would close the endpoint every socket shares.
    client = IrohClient(endpoint, connection, stream)
    try:
        await client.send("")
        frames = await client.wait_closed(timeout=30)
    except (Closed, IrohError):
        frames = []
    finally:
        connection.close(0, b"")
    answers.append(frames[0].get("code", "") if frames else "closed")


async def _flood(server, carrier: str, answers: list[str]) -> None:
    """Waves of silent sockets from every attacker, each wave once the last is closed."""
    endpoints = {source: await iroh_endpoint(source) for source in ATTACKERS} if carrier == "iroh" else {}

    def silent(source: str):
        if carrier == "ws":
            return _silent_websocket(server.ws_url, source, answers)
        return _silent_iroh(endpoints[source], server.ticket, answers)

    try:
        for _wave in range(WAVES):
            await asyncio.gather(*(silent(source) for source in ATTACKERS for _ in range(PER_ATTACKER)))
    finally:
        for endpoint in endpoints.values():
            with contextlib.suppress(IrohError):
                await endpoint.close()


async def _right_key(server, carrier: str, key: str) -> tuple[str, float]:
    """A player's join from its own address: what it got first, and how long after it
    began to connect."""
    began = time.monotonic()
    if carrier == "ws":
        player = await WsClient.connect(server.ws_url, source=PLAYER)
        await player.send({"type": "join", "key": key})
    else:
        player = await IrohClient.connect(server.ticket, first={"type": "join", "key": key}, source=PLAYER)
    async with player:
        try:
            first = await player.recv(timeout=15)
        except Closed:
            return "closed", time.monotonic() - began
        return first.get("code", first["type"]), time.monotonic() - began


@pytest.mark.timeout(150)
async def test_a_right_key_is_welcomed_within_a_second_during_a_flood_of_silent_sockets(
    flooded_server, room, carrier
):
    keys = [flooded_server.env.mint(room, f"Player {n}") for n in range(len(PROBES))]
    answers: list[str] = []
    start = time.monotonic()
    flood = asyncio.create_task(_flood(flooded_server, carrier, answers))
    probes = []
    try:
        for at, key in zip(PROBES, keys, strict=True):
            await asyncio.sleep(max(0.0, start + at - time.monotonic()))  # the probe's schedule
            probes.append((at, *await _right_key(flooded_server, carrier, key)))
    finally:
        await flood
    waits = [round(took, 3) for _at, _answer, took in probes]
    print(f"{carrier}: right key's wait median {statistics.median(waits)} s, max {max(waits)} s: {probes}")
    assert [answer for _at, answer, _took in probes] == ["welcome"] * len(PROBES), probes
    assert max(waits) < WELCOMED_WITHIN, probes
    assert "too_many_connections" in answers, "the flood overflowed the budget"
    assert await connections_settle(flooded_server, carrier, 0) == 0, "every place given back"
