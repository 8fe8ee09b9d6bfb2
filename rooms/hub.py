"""RoomHub: delivery to the members of a room, across every server process.

Each process that has connections in a room holds one channel of the channel layer
in the room's group (`LocalHub`) and hands what arrives to its sessions there. A
broadcast is one `group_send`, one message per process rather than per member; what
each connection finally writes is decided by its own session (`SessionCore`), so
per-viewer frames (state, keeper-only rows) are built per member, never one frame
for all.

Messages on the layer:
- `room.frame`: a frame with its audience; `row` names the stored transcript entry
  or turn event it came from, so a replaying session can drop a live copy of a row
  its replay already showed.
- `room.presence`: the room's membership changed; each session sends `presence` and
  its own `state`.
- `room.state`: a turn ended; each session sends its own `state`.

Both carry a `refresh` id: the sessions of one process that receive the same refresh
share one read of the room (`RoomReads`), then each projects its viewer's frame.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Protocol

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from keeper.state import RoomRead, read_room
from rooms import coordination
from rooms.models import Audience


def group_name(room_id: int) -> str:
    """The channel-layer group of a room."""
    return f"room.{room_id}"


async def publish(
    room_id: int,
    frame: dict,
    *,
    audience: str = Audience.EVERYONE,
    member_id: str = "",
    row: tuple[str, int] | None = None,
) -> None:
    """Send `frame` to the room: to everyone, or to keepers plus `member_id`."""
    await get_channel_layer().group_send(
        group_name(room_id),
        {
            "type": "room.frame",
            "frame": frame,
            "audience": audience,
            "member_id": member_id,
            "row": list(row) if row else None,
        },
    )


async def publish_presence_changed(room_id: int, *, except_connection: str = "") -> None:
    """Tell every connection of the room that someone joined or left."""
    await get_channel_layer().group_send(
        group_name(room_id), {"type": "room.presence", "except": except_connection, "refresh": _refresh_id()}
    )


async def publish_state_refresh(room_id: int, *, reset: bool = False) -> None:
    """Tell every connection of the room to send its viewer a fresh `state` (marked
    `reset` after a campaign wipe)."""
    await get_channel_layer().group_send(
        group_name(room_id), {"type": "room.state", "refresh": _refresh_id(), "reset": reset}
    )


def _refresh_id() -> str:
    # The connections of one process that receive the same refresh read the room once.
    return uuid.uuid4().hex


class RoomListener(Protocol):
    """A session, as the hub sees it."""

    def room_message(self, message: dict) -> None:
        """Take one room message; must not block."""


@dataclass
class _RoomEnd:
    ready: asyncio.Future
    listeners: set[RoomListener] = field(default_factory=set)
    channel: str = ""
    tasks: list[asyncio.Task] = field(default_factory=list)


class LocalHub:
    """This process's end of each room group: one channel per room, shared by every
    connection of that room on this process.

    A routing table of this process's own connections, so it is per process by nature.
    """

    # Group membership on the channel layer expires (a day on Redis); renew it well before.
    RENEW_SECONDS = 3600

    def __init__(self) -> None:
        self._rooms: dict[int, _RoomEnd] = {}

    async def attach(self, room_id: int, listener: RoomListener) -> None:
        """Start handing room messages to `listener` (from the moment this returns)."""
        end = self._rooms.get(room_id)
        if end is None:
            end = self._rooms[room_id] = _RoomEnd(ready=asyncio.get_running_loop().create_future())
            try:
                layer = get_channel_layer()
                end.channel = await layer.new_channel()
                await layer.group_add(group_name(room_id), end.channel)
                end.tasks = [
                    asyncio.create_task(self._receive(end)),
                    asyncio.create_task(self._renew(room_id, end)),
                ]
                end.ready.set_result(True)
            except BaseException as exc:
                del self._rooms[room_id]
                end.ready.set_exception(exc)
                raise
        else:
            await asyncio.shield(end.ready)
        end.listeners.add(listener)

    async def detach(self, room_id: int, listener: RoomListener) -> None:
        """Stop handing room messages to `listener`; leave the group with the last one."""
        end = self._rooms.get(room_id)
        if end is None:
            return
        end.listeners.discard(listener)
        if end.listeners or not end.ready.done():
            return
        del self._rooms[room_id]
        for task in end.tasks:
            task.cancel()
        await get_channel_layer().group_discard(group_name(room_id), end.channel)

    async def _receive(self, end: _RoomEnd) -> None:
        layer = get_channel_layer()
        while True:
            message = await layer.receive(end.channel)
            for listener in list(end.listeners):
                listener.room_message(message)

    async def _renew(self, room_id: int, end: _RoomEnd) -> None:
        while True:
            await asyncio.sleep(self.RENEW_SECONDS)
            await get_channel_layer().group_add(group_name(room_id), end.channel)


local_hub = LocalHub()


class RoomReads:
    """What a refresh reads about a room, read once per process and shared.

    Per-process derived data, not shared truth: the truth stays in the cache and the
    database; this only spares six viewers of one room six identical reads.
    """

    KEEP = 256

    def __init__(self) -> None:
        self._reads: OrderedDict[tuple[int, str], asyncio.Task] = OrderedDict()

    async def read(self, room_id: int, refresh: str | None) -> tuple[list[coordination.Member], RoomRead]:
        """(online members, the room's game state) as of `refresh` (fresh when None)."""
        if refresh is None:
            return await self._read(room_id)
        key = (room_id, refresh)
        task = self._reads.get(key)
        if task is None:
            task = asyncio.ensure_future(self._read(room_id))
            self._reads[key] = task
            while len(self._reads) > self.KEEP:
                self._reads.popitem(last=False)
        return await asyncio.shield(task)

    @staticmethod
    async def _read(room_id: int) -> tuple[list[coordination.Member], RoomRead]:
        online = await coordination.shared().online_members(room_id)
        return online, await database_sync_to_async(read_room)(room_id)


room_reads = RoomReads()
