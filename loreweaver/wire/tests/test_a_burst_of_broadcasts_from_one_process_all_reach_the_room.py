"""A process that broadcasts many room messages at the same moment (a busy process: a
turn ending in each of its rooms) has every one of them reach the room, in the order it
sent them. The room bus publishes on one pipelined connection (`loreweaver/wire/
layer.py`); through redis-py's pool, the 101st publish in flight at once was refused
(`MaxConnectionsError`) instead of sent (docs/performance.md, "The turn queue's way to
Redis")."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from loreweaver.testing.servers import hosted_profile
from loreweaver.wire.bus import LayerBus

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the Redis bus is the hosted profile's")

ROOM = 900_101
BURST = 250


async def test_two_hundred_and_fifty_broadcasts_at_once_all_arrive_in_order():
    heard: list[int] = []
    all_heard = asyncio.Event()

    def deliver(room_id: int, message: dict) -> None:
        heard.append(message["n"])
        if len(heard) == BURST:
            all_heard.set()

    bus = LayerBus(get_channel_layer(), deliver, on_lost=lambda: None)
    try:
        await bus.join(ROOM)
        reached = await asyncio.gather(
            *(bus.publish(ROOM, {"type": "room.test", "n": n}) for n in range(BURST))
        )
        async with asyncio.timeout(10):
            await all_heard.wait()
    finally:
        await bus.close()

    assert reached == [1] * BURST
    assert heard == list(range(BURST))
