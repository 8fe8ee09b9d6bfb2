"""RoomHub: delivery to the members of a room, across every server process.

Every connection (WebSocket or Iroh, on any process) listens on its own channel of
the channel layer and is in its room's group. A broadcast is one `group_send`; what
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
"""

from __future__ import annotations

from channels.layers import get_channel_layer

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
        group_name(room_id), {"type": "room.presence", "except": except_connection}
    )


async def publish_state_refresh(room_id: int) -> None:
    """Tell every connection of the room to send its viewer a fresh `state`."""
    await get_channel_layer().group_send(group_name(room_id), {"type": "room.state"})
