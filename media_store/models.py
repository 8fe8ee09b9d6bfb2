"""The media index: which blobs a room holds, who sent them, and what they are.

Blobs live in the configured Django storage under `media/<room id>/<sha256>`; a row
here is the truth for which room may read a hash. Audio rows also carry the library
metadata (title, license, source, tags) and the room's audio desk state is kept per
layer, so a late joiner starts the music at the right place.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from base import frames
from rooms.models import Room


class MediaKind(models.TextChoices):
    IMAGE = "image", "image"
    AUDIO = "audio", "audio"


class MediaItem(models.Model):
    """One stored file of a room."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="media")
    sha256 = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=MediaKind.choices)
    mime = models.CharField(max_length=40)
    size = models.PositiveBigIntegerField()
    name = models.CharField(max_length=200)
    uploader_id = models.CharField(max_length=16, help_text="member id")
    uploader_name = models.CharField(max_length=64)
    frame_id = models.CharField(max_length=32, unique=True)
    title = models.CharField(max_length=200, blank=True)
    license = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=500, blank=True)
    tags = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("media item")
        verbose_name_plural = _("media items")
        ordering = ["room", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "sha256"], name="one_blob_per_hash_per_room")]

    def __str__(self) -> str:
        return f"{self.name} ({self.mime}, {self.size} bytes) in {self.room.name}"

    @property
    def storage_key(self) -> str:
        return storage_key(self.room_id, self.sha256)

    def as_frame(self) -> dict:
        """The `media` (image) or `audio_library_item` (audio) frame of this file."""
        frame = frames.media_item(
            self.kind,
            id=self.frame_id,
            hash=self.sha256,
            mime=self.mime,
            size=self.size,
            name=self.name,
            ts=self.created_at.timestamp(),
            **{"from": self.uploader_name},
        )
        if self.kind == MediaKind.AUDIO:
            for field in ("title", "license", "source"):
                if getattr(self, field):
                    frame[field] = getattr(self, field)
            if self.tags:
                frame["tags"] = list(self.tags)
        return frame


def storage_key(room_id: int, sha256: str) -> str:
    """Where a room's blob lives in the storage."""
    return f"media/{room_id}/{sha256}"


class RoomMedia(models.Model):
    """Per-room media settings: whether members may upload."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="media_settings")
    uploads_enabled = models.BooleanField(default=True)

    class Meta:
        verbose_name = _("room media settings")
        verbose_name_plural = _("room media settings")

    def __str__(self) -> str:
        return f"{self.room.name}: uploads {'on' if self.uploads_enabled else 'off'}"


class AudioLayer(models.Model):
    """What one audio layer (bgm, ambience) of a room is playing, for late joiners."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="audio_layers")
    layer = models.CharField(max_length=10)
    sha256 = models.CharField(max_length=64, blank=True)
    mime = models.CharField(max_length=40, blank=True)
    name = models.CharField(max_length=200, blank=True)
    title = models.CharField(max_length=200, blank=True)
    playing = models.BooleanField(default=False)
    volume = models.FloatField(null=True, blank=True)
    loop = models.BooleanField(default=False)
    started_at = models.FloatField(null=True, blank=True, help_text="server time (epoch seconds)")
    # Where a paused track stopped (seconds into it), so resume picks up there.
    paused_at_position = models.FloatField(null=True, blank=True)

    class Meta:
        verbose_name = _("audio layer")
        verbose_name_plural = _("audio layers")
        constraints = [models.UniqueConstraint(fields=["room", "layer"], name="one_state_per_layer")]

    def __str__(self) -> str:
        return f"{self.room.name} {self.layer}: {self.name or '-'}"

    def as_entry(self) -> dict:
        """This layer in `audio_state`."""
        entry: dict = {"layer": self.layer, "playing": self.playing, "loop": self.loop}
        for field in ("mime", "name", "title"):
            if getattr(self, field):
                entry[field] = getattr(self, field)
        if self.sha256:
            entry["hash"] = self.sha256
        if self.volume is not None:
            entry["volume"] = self.volume
        if self.playing and self.started_at is not None:
            entry["started_at"] = self.started_at
        return entry
