"""The game's own state per room. Characters, NPCs and module state arrive with later
steps of the game-core and Keeper issues."""

from __future__ import annotations

from django.db import models

from rooms.models import Room


class TableSettings(models.Model):
    """Per-room game settings the keeper chooses (kept by `admin_reset_room`)."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="table_settings")
    system = models.CharField(max_length=32, default="coc7")
    house_rule = models.CharField(max_length=8, default="0")

    class Meta:
        verbose_name_plural = "table settings"

    def __str__(self) -> str:
        return f"{self.room.name}: {self.system}, house rule {self.house_rule}"

    @classmethod
    def of(cls, room_id: int) -> TableSettings:
        """The room's settings, created with the defaults on first use."""
        settings, _ = cls.objects.get_or_create(room_id=room_id)
        return settings
