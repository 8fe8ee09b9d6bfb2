"""The room bus: how a room message reaches every process that serves the room.

The bus is Django Channels' channel layer (`CHANNEL_LAYERS`, `loreweaver/wire/layer.py`):
channels-redis's pub/sub layer when hosted, the in-memory layer when embedded. Each
process that has sessions in a room joins the room's group, `room.<id>`, once, with a
channel of its own, and `LocalHub` (hub.py) hands what arrives there to its sessions:
one PUBLISH per broadcast, however many members. Any Django code can reach a room the
same way: `get_channel_layer().group_send("room.<id>", {"type": "room.notice", "text":
...})` shows the text to every member as a `system` line (docs/architecture.md lists
the other message types).

Pub/sub keeps no queue: a process whose Redis connection dropped has missed what was
published meanwhile. The layer says so on every channel (`layer.DISCONNECT`), the bus
reports the loss (`on_lost`), and once Redis has confirmed every subscription again
(`layer.RECONNECT`) the hub has its sessions catch up from the database (`rejoin`).
What a turn publishes is committed first, so nothing but live-only frames (a draft's
deltas, a busy marker) can be missed for good.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from channels.layers import get_channel_layer

from loreweaver.wire import layer as layers

log = logging.getLogger(__name__)

Deliver = Callable[[int, dict], None]

# How long `rejoin` waits for the layer to say it is back before it raises (the hub
# asks again, a little later each time).
REJOIN_WAIT = 1.0


class Bus(Protocol):
    """What the hub needs from a bus (all on the server's event loop)."""

    async def join(self, room_id: int) -> None:
        """Receive the room's messages from the moment this returns."""

    async def leave(self, room_id: int) -> None:
        """Stop receiving the room's messages."""

    async def publish(self, room_id: int, message: dict) -> int:
        """Send `message` to every process in the room; how many processes it reached
        (this one included); raises when it could not."""

    async def rejoin(self) -> None:
        """After a loss: join every room again; raises while the bus is unreachable."""

    async def close(self) -> None:
        """Let go of connections."""


def group_name(room_id: int) -> str:
    """The channel layer group of a room."""
    return f"room.{room_id}"


class LayerBus:
    """Room messages over a channel layer (see the module docstring)."""

    def __init__(self, layer: Any, deliver: Deliver, on_lost: Callable[[], None]) -> None:
        self._layer = layer
        self._deliver = deliver
        self._on_lost = on_lost
        self._readers: dict[int, tuple[str, asyncio.Task]] = {}
        self._connected = asyncio.Event()
        self._connected.set()

    async def join(self, room_id: int) -> None:
        channel = await self._layer.new_channel("room")
        reader = asyncio.get_running_loop().create_task(self._read(room_id, channel))
        try:
            await self._layer.group_add(group_name(room_id), channel)
        except BaseException:
            reader.cancel()
            raise
        self._readers[room_id] = (channel, reader)

    async def leave(self, room_id: int) -> None:
        channel, reader = self._readers.pop(room_id, ("", None))
        if reader is None:
            return
        reader.cancel()  # the layer lets go of the channel when its reader stops
        try:
            await self._layer.group_discard(group_name(room_id), channel)
        except Exception as exc:  # a lost connection is repaired by `rejoin`, without it
            log.warning("room=%s could not leave the room bus: %r", room_id, exc)

    async def publish(self, room_id: int, message: dict) -> int:
        reached = await self._layer.group_send(group_name(room_id), message)
        return reached if isinstance(reached, int) else 2  # a layer that cannot count: "others too"

    async def rejoin(self) -> None:
        async with asyncio.timeout(REJOIN_WAIT):
            await self._connected.wait()

    async def close(self) -> None:
        for room_id in list(self._readers):
            await self.leave(room_id)

    async def _read(self, room_id: int, channel: str) -> None:
        while True:
            message = await self._layer.receive(channel)
            kind = message.get("type")
            if kind == layers.DISCONNECT:
                if self._connected.is_set():
                    self._connected.clear()
                    self._on_lost()
            elif kind == layers.RECONNECT:
                self._connected.set()
            else:
                self._deliver(room_id, message)


def spans_processes(bus: Bus) -> bool:
    """Whether messages on `bus` reach other processes."""
    return isinstance(bus, LayerBus) and isinstance(bus._layer, layers.RoomPubSubLayer)


def make_bus(deliver: Deliver, on_lost: Callable[[], None]) -> Bus:
    """The bus on this deployment's channel layer."""
    return LayerBus(get_channel_layer(), deliver, on_lost)


async def publish_from_elsewhere(room_id: int, message: dict) -> None:
    """Publish from an event loop that is not the server's (a management command): the
    layer keeps a connection per event loop. An embedded server runs in one process, so
    its in-memory layer reaches only that process's rooms."""
    await get_channel_layer().group_send(group_name(room_id), message)
