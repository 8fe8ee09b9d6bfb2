"""Silent sockets cannot lock the table out (docs/operations.md, "Admission"): a flood
of sockets that never send their join, from a few addresses, fills the handshake
budget, and a right key from another address is still welcomed within a second, again
and again while the flood lasts, over WebSocket and over Iroh: a silent socket of the
flood is closed to make room for it. Every place is given back when the flood stops.

The server keeps its real default budget (150 handshakes of a cap of 200, 64 per
address): three addresses with 60 silent sockets each overflow it, as they did when
they locked new joins out.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

import pytest

from loreweaver.testing.clients import Closed, IrohClient, WsClient
from loreweaver.testing.metrics import connections_settle
from loreweaver.testing.servers import ROOT, dedicated_server

ATTACKERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
PER_ATTACKER = 60  # 180 silent sockets: more than the default handshake budget (150)
PLAYER = "127.0.0.5"
# The flood (`silent_flood.py`) opens its sockets again once the join timeout (10 s)
# has closed them.
WAVES = 2
# Seconds after a wave's sockets are open that a right key joins (before the join
# timeout closes them).
PROBES = (0.5, 3.0, 6.0)
WELCOMED_WITHIN = 1.0

flooded_server = dedicated_server()


async def _wave(server, carrier: str) -> asyncio.subprocess.Process:
    """Start a wave of the flood (`silent_flood.py`, a process of its own); its sockets
    are open when this returns."""
    target = server.ws_url if carrier == "ws" else server.ticket
    flood = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "loreweaver.wire.tests.silent_flood",
        carrier,
        target,
        str(PER_ATTACKER),
        *ATTACKERS,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    assert await asyncio.wait_for(flood.stdout.readline(), 60) == b"open\n"
    return flood


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
    answers: list[str] = []
    probes = []
    for _ in range(WAVES):  # each wave once the last one's sockets are closed
        flood = await _wave(flooded_server, carrier)
        start = time.monotonic()
        try:
            for at in PROBES:
                await asyncio.sleep(max(0.0, start + at - time.monotonic()))  # the probe's schedule
                key = flooded_server.env.mint(room, f"Player {len(probes)}")
                probes.append((at, *await _right_key(flooded_server, carrier, key)))
        finally:
            answers += json.loads(await asyncio.wait_for(flood.stdout.readline(), 60))
            await flood.wait()
    waits = [round(took, 3) for _at, _answer, took in probes]
    print(f"{carrier}: right key's wait median {statistics.median(waits)} s, max {max(waits)} s: {probes}")
    assert [answer for _at, answer, _took in probes] == ["welcome"] * (WAVES * len(PROBES)), probes
    assert max(waits) < WELCOMED_WITHIN, probes
    assert "too_many_connections" in answers, "the flood overflowed the budget"
    assert await connections_settle(flooded_server, carrier, 0) == 0, "every place given back"
