"""Reads of a room's media: what a joining member is shown after the story, and the
whole of a join's replay."""

from __future__ import annotations

from base import frames
from media_store.models import AudioLayer, MediaItem
from media_store.services import StoredFile, uploads_enabled
from rooms.models import Room
from rooms.selectors import Replay, replay_for


def media_replay(room_id: int) -> list[tuple[dict, tuple[str, int] | None]]:
    """The room's media and audio library (each frame with the row it shows), the audio
    desk's state when music is set, and `media_enabled{false}` when uploads are off."""
    replay: list[tuple[dict, tuple[str, int] | None]] = [
        (item.as_frame(), ("media", item.id))
        for item in MediaItem.objects.filter(room_id=room_id).order_by("id")
    ]
    layers = list(AudioLayer.objects.filter(room_id=room_id).order_by("layer"))
    if layers:
        replay.append((frames.audio_state([layer.as_entry() for layer in layers]), None))
    if not uploads_enabled(room_id):
        replay.append((frames.media_enabled(False), None))
    return replay


def stored_item(item_id: int) -> StoredFile:
    """The stored file `item_id` (one a turn just stored, to announce to the room)."""
    return StoredFile.of(MediaItem.objects.get(pk=item_id))


def join_replay(room_id: int, *, member_id: str, is_keeper: bool, answers: bool = False) -> Replay:
    """What a member joining the room is shown before its state: the story as they may
    see it (with the commands' answers to the table when `answers`:
    `rooms.selectors.replay_for`), then the media library."""
    replay = replay_for(room=Room(pk=room_id), member_id=member_id, is_keeper=is_keeper, answers=answers)
    for frame, row in media_replay(room_id):
        replay.add(frame, row)
    return replay
