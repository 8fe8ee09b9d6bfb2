"""The Redis room bus (channels-redis's pub/sub layer) of a process that has just
started joins many rooms at once (a burst of first joins at a cold start): every
subscription is confirmed, and every room's messages arrive. Subscribing on a fresh
connection from several rooms at the same moment used to open a connection per room,
of which only the last was read: the other rooms' joins waited out the timeout, or
were cut off (docs/operations.md, "Faults")."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from loreweaver.testing.servers import hosted_profile
from loreweaver.wire.bus import LayerBus
from loreweaver.wire.layer import SUBSCRIBE_TIMEOUT

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the Redis bus is the hosted profile's")

ROOMS = list(range(900_001, 900_011))


async def test_a_fresh_bus_joins_ten_rooms_at_once_and_hears_each():
    heard: dict[int, list[dict]] = {room: [] for room in ROOMS}
    every_room_heard = asyncio.Event()

    def deliver(room_id: int, message: dict) -> None:
        heard[room_id].append(message)
        if all(heard.values()):
            every_room_heard.set()

    bus = LayerBus(get_channel_layer(), deliver, on_lost=lambda: None)
    try:
        async with asyncio.timeout(SUBSCRIBE_TIMEOUT / 2):
            await asyncio.gather(*(bus.join(room) for room in ROOMS))
        for room in ROOMS:
            assert await bus.publish(room, {"type": "room.test", "room": room}) == 1
        async with asyncio.timeout(5):
            await every_room_heard.wait()
        assert {room: [m["room"] for m in messages] for room, messages in heard.items()} == {
            room: [room] for room in ROOMS
        }
    finally:
        await bus.close()
