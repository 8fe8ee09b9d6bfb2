"""A wave of silent sockets, from a process of its own: the attacker of
`test_silent_sockets_from_many_addresses_leave_room_for_the_right_key.py`, kept apart
so that its work does not slow the test's own clients, whose waits it measures.

`python -m loreweaver.wire.tests.silent_flood ws|iroh <ws url or ticket> <per address>
<address>...` opens that many sockets from each loopback address at once, says nothing
on them and holds each until the server closes it. It prints `open` once every socket
has connected (or failed to) and, once every socket is closed, a JSON list of what the
server said first on each (its error code, `closed` or `not connected`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

import websockets
from iroh import IrohError

from loreweaver.testing.clients import Closed, IrohClient, WsClient, iroh_dial, iroh_endpoint

HOLD = 30.0  # seconds a socket waits for the server to close it (the join timeout is 10)


class _Opening:
    """Counts the wave's sockets as each connects (or fails to); prints `open` after the last."""

    def __init__(self, sockets: int) -> None:
        self.left = sockets

    def done(self) -> None:
        self.left -= 1
        if self.left == 0:
            print("open", flush=True)


async def _silent_websocket(url: str, source: str, opening: _Opening) -> str:
    try:
        socket = await WsClient.connect(url, source=source)
    except (OSError, websockets.InvalidHandshake, TimeoutError):
        opening.done()
        return "not connected"
    opening.done()
    async with socket:
        frames = await socket.wait_closed(timeout=HOLD)
    return frames[0].get("code", "") if frames else "closed"


async def _silent_iroh(endpoint, ticket: str, opening: _Opening) -> str:
    """A connection whose control stream carries a blank line (so that the server sees
    it) and never a join."""
    try:
        connection, stream = await iroh_dial(endpoint, ticket)
    except (IrohError, TimeoutError):
        opening.done()
        return "not connected"
    # Not closed with `close()`, which would close the endpoint its address's sockets share.
    client = IrohClient(endpoint, connection, stream)
    try:
        await client.send("")
        opening.done()
        frames = await client.wait_closed(timeout=HOLD)
    except (Closed, IrohError):
        frames = []
    finally:
        connection.close(0, b"")
    return frames[0].get("code", "") if frames else "closed"


async def wave(carrier: str, target: str, per_address: int, addresses: list[str]) -> list[str]:
    """What the server said first on each of the wave's sockets."""
    endpoints = {address: await iroh_endpoint(address) for address in addresses} if carrier == "iroh" else {}
    opening = _Opening(per_address * len(addresses))

    def silent(address: str):
        if carrier == "ws":
            return _silent_websocket(target, address, opening)
        return _silent_iroh(endpoints[address], target, opening)

    try:
        return await asyncio.gather(*(silent(address) for address in addresses for _ in range(per_address)))
    finally:
        for endpoint in endpoints.values():
            with contextlib.suppress(IrohError):
                await endpoint.close()


if __name__ == "__main__":
    carrier, target, per_address, *addresses = sys.argv[1:]
    print(json.dumps(asyncio.run(wave(carrier, target, int(per_address), addresses))), flush=True)
