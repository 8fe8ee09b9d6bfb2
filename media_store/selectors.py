"""Reads of a room's media: what a joining member is shown after the story."""

from __future__ import annotations

from base import frames
from media_store.models import AudioLayer, MediaItem
from media_store.services import uploads_enabled


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
