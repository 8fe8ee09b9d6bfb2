"""Strangers cannot crowd out the table (docs/operations.md, "Admission"): sockets that
have not joined yet draw from a budget of their own, limited per address, and a wrong
key waits out its backoff outside it. So during a flood of wrong-key joins from one
address, a right key from another is welcomed at once, and the flood's sockets are all
given back when it stops."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from loreweaver.testing.clients import Closed, WsClient
from loreweaver.testing.metrics import connections_settle
from loreweaver.testing.servers import dedicated_server

FLOOD = 250  # parallel wrong-key joins, each one again as soon as it is answered
ATTACKER = "127.0.0.2"
PROBES = (1.0, 3.0, 6.0)  # seconds into the flood a right key joins

# Every wrong key counts (no free ones), so answers wait up to the longest backoff.
flooded_server = dedicated_server(TRPG_RATE__BAD_KEYS_FREE="0")


async def _guess_until(server, deadline: float, answers: list[str]) -> None:
    while time.monotonic() < deadline:
        try:
            guesser = await WsClient.connect(server.ws_url, source=ATTACKER)
        except OSError:
            continue
        async with guesser:
            await guesser.send({"type": "join", "key": "not-a-key-" + "x" * 20})
            with contextlib.suppress(Closed, TimeoutError):
                answers.append((await guesser.recv(timeout=15)).get("code", ""))


@pytest.mark.timeout(120)
async def test_a_right_key_gets_in_during_a_flood_of_wrong_ones_from_one_address(flooded_server, room):
    env = flooded_server.env
    keys = [env.mint(room, f"Player {n}") for n in range(len(PROBES))]
    answers: list[str] = []
    start = time.monotonic()
    flood = [asyncio.create_task(_guess_until(flooded_server, start + 8, answers)) for _ in range(FLOOD)]
    welcomed = []
    try:
        for at, key in zip(PROBES, keys, strict=True):
            await asyncio.sleep(max(0.0, start + at - time.monotonic()))
            player = await WsClient.connect(flooded_server.ws_url)
            frames = await player.join(key)
            welcomed.append((round(time.monotonic() - start, 1), frames[0]["type"]))
            await player.close()
    finally:
        await asyncio.gather(*flood)
    assert [kind for _at, kind in welcomed] == ["welcome"] * len(PROBES), welcomed
    assert "bad_key" in answers and "too_many_connections" in answers, "the flood was refused both ways"
    assert await connections_settle(flooded_server, "ws", 0) == 0, "every place given back"
