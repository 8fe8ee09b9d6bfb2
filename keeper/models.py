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
    language = models.CharField(
        max_length=2, default="", blank=True, help_text="en or zh; empty: the server's"
    )
    # A `.reset` waiting for `.reset confirm`.
    pending_reset = models.CharField(max_length=8, blank=True)
    pending_reset_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "table settings"

    def __str__(self) -> str:
        return f"{self.room.name}: {self.system}, house rule {self.house_rule}"

    @classmethod
    def of(cls, room_id: int) -> TableSettings:
        """The room's settings, created with the defaults on first use."""
        settings, _ = cls.objects.get_or_create(room_id=room_id)
        return settings


class Character(models.Model):
    """A character sheet in a room: a member's, or a pregenerated one to claim.

    `attributes` holds the pack's characteristics, `skills` everything else a check
    can name, `resources` the current value of each vital (HP, SAN, ...). Maxima and
    other derived values are computed from the pack, never stored.
    """

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="characters")
    owner = models.CharField(max_length=16, blank=True, help_text="member id; empty for an unclaimed pregen")
    name = models.CharField(max_length=64)
    system = models.CharField(max_length=32)
    attributes = models.JSONField(default=dict)
    skills = models.JSONField(default=dict)
    resources = models.JSONField(default=dict)
    status_effects = models.JSONField(default=list)
    active = models.BooleanField(default=False)
    pregen = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room", "name"]
        indexes = [models.Index(fields=["room", "owner", "active"])]
        constraints = [
            models.UniqueConstraint(
                fields=["room", "owner"],
                condition=models.Q(active=True),
                name="one_active_character_per_member",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.system}) in {self.room.name}"


class InitiativeEntry(models.Model):
    """One combatant in the room's initiative order (`.ri`)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="initiative")
    name = models.CharField(max_length=64)
    value = models.IntegerField()
    tiebreak = models.IntegerField(default=0)
    current = models.BooleanField(default=False)

    class Meta:
        ordering = ["room", "-value", "-tiebreak", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "name"], name="one_initiative_entry_per_name")]

    def __str__(self) -> str:
        return f"{self.name} {self.value}"
