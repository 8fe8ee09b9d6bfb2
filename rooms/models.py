"""The table's durable state: rooms, access keys, the transcript and its turn events."""

from __future__ import annotations

import datetime
import math

from django.db import models
from django.utils.translation import gettext_lazy as _

from base import frames
from rooms.choices import Audience, Role, Speaker  # defined apart (the wire names them without the models)

# The genres the SideQuest web client has a look for (docs/sidequest.md, "Genres"): it
# refuses to draw any other, so a room is shown to it under one of these.
SIDEQUEST_GENRES = (
    "caverns_and_claudes",
    "elemental_harmony",
    "heavy_metal",
    "low_fantasy",
    "mutant_wasteland",
    "neon_dystopia",
    "pulp_noir",
    "road_warrior",
    "space_opera",
    "spaghetti_western",
    "victoria",
)
# A room's genre when its operator chose none: from its rule system.
SIDEQUEST_GENRE_OF_SYSTEM = {"coc7": "pulp_noir", "dnd5e": "low_fantasy"}
SIDEQUEST_GENRE_FALLBACK = "low_fantasy"


class Room(models.Model):
    """A table. Players join it with an access key bound to its name."""

    name = models.CharField(_("name"), max_length=64, unique=True)
    # Open to any name: a SideQuest client may join it without a key, as a player.
    open_to_all = models.BooleanField(
        _("open to all"),
        default=False,
        help_text=_("SideQuest clients may join without a key, as players, under any name"),
    )
    # The SideQuest genre the room is listed under; empty: from the rule system.
    sidequest_genre = models.CharField(
        max_length=32,
        blank=True,
        default="",
        choices=[(slug, slug) for slug in SIDEQUEST_GENRES],
        help_text=_("the SideQuest web client's genre for this room; empty: from its rule system"),
    )
    # A game a player started from the SideQuest lobby (not the operator): these count
    # against TRPG_SIDEQUEST__PLAYER_GAMES, and one nobody ever played in is given up.
    started_by_player = models.BooleanField(
        default=False, help_text=_("started by a player from the SideQuest lobby"), editable=False
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Purpose(models.TextChoices):
    JOIN = "join", _("join a table")
    CHAT_BIND = "chat_bind", _("bind a chat account")


class AccessKey(models.Model):
    """One member's key to one room.

    The key itself is never stored: only its SHA-256 digest (to look it up at join),
    the member id the protocol derives from it, and a mask for display. A key may
    expire; a `chat_bind` key is a token for binding a chat account, never a way in.
    """

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="keys", verbose_name=_("room"))
    digest = models.CharField(max_length=64, unique=True, editable=False)
    member_id = models.CharField(_("member id"), max_length=16, editable=False)
    key_masked = models.CharField(_("key"), max_length=16, editable=False)
    name = models.CharField(_("name"), max_length=64)
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.PLAYER)
    purpose = models.CharField(_("purpose"), max_length=12, choices=Purpose.choices, default=Purpose.JOIN)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    # The operator disconnected this member with a cool-down: joins are refused until then.
    kept_out_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("Joins with this key are refused until then (an operator's disconnect)"),
    )
    # A guest's seat in a room open to any name (rooms/guests.py): made by the server for
    # one browser, never shown; it expires when unused, and its revocation is remembered.
    guest = models.BooleanField(_("guest"), default=False, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("access key")
        verbose_name_plural = _("access keys")
        ordering = ["room__name", "name"]
        indexes = [models.Index(fields=["room", "role"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.role}) in {self.room.name}"

    @property
    def public_id(self) -> str:
        """The stable, non-secret id admin frames use for this key."""
        return self.digest[:16]

    @property
    def is_keeper(self) -> bool:
        return self.role == Role.KEEPER

    def expired(self, now: datetime.datetime) -> bool:
        """Whether the key has run out at `now`."""
        return self.expires_at is not None and self.expires_at <= now

    def kept_out(self, now: datetime.datetime) -> bool:
        """Whether an operator's disconnect still keeps this key's holder out at `now`."""
        return self.kept_out_until is not None and self.kept_out_until > now

    def kept_out_minutes(self, now: datetime.datetime) -> int:
        """How many more minutes (rounded up) an operator's disconnect keeps this key's
        holder out at `now`; 0 when it does not."""
        if not self.kept_out(now):
            return 0
        return max(1, math.ceil((self.kept_out_until - now).total_seconds() / 60))

    def is_last_keeper(self) -> bool:
        """Whether this is its room's only keeper key (which must stay, or the room is lost)."""
        others = AccessKey.objects.filter(room_id=self.room_id, role=Role.KEEPER).exclude(pk=self.pk)
        return self.is_keeper and not others.exists()


class GuestRevocation(models.Model):
    """A guest's seat that was revoked: the browser it belonged to may not take it
    again. Only the digest of the seat's key is kept (the seat itself is deleted, as
    any revoked key is)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="guest_revocations")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    name = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("revoked guest")
        verbose_name_plural = _("revoked guests")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} in {self.room.name}"


class TranscriptEntry(models.Model):
    """One story line the table saw (a player's utterance, the Keeper's reply, ...).

    `frame_id` is the id the line had on the wire; a replay sends it again so clients
    can dedupe. Rows are append-only and ordered by `id`.
    """

    # No index of its own: the (room, id) index below leads with the room and serves every
    # lookup by room; a second one would be written at every line for nothing.
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="transcript", db_index=False)
    frame_id = models.CharField(max_length=40, unique=True)
    speaker = models.CharField(max_length=8, choices=Speaker.choices)
    name = models.CharField(max_length=64, blank=True)
    member_id = models.CharField(max_length=16, blank=True)
    text = models.TextField()
    format = models.CharField(max_length=8, default="plain")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("transcript entry")
        verbose_name_plural = _("transcript entries")
        ordering = ["id"]
        indexes = [models.Index(fields=["room", "id"])]

    def __str__(self) -> str:
        return f"{self.name or self.speaker}: {self.text[:60]}"

    def as_frame(self) -> dict:
        """The `narrative` frame this line was broadcast as."""
        return frames.narrative(
            self.frame_id, self.speaker, self.text, text_format=self.format, name=self.name
        )


class TurnEvent(models.Model):
    """A frame a turn produced besides its story line (a dice roll, an NPC's line, a
    command's answer to the whole table).

    Each event is anchored to the transcript entry it followed live, so a join replay
    puts it back in the same place. `anchor` is empty for events recorded before the
    room's first transcript entry (root-anchored). Keeper-only events name the member
    who may also see them (e.g. the roller of a hidden roll).
    """

    # Indexed by the (room, anchor, id) index below, which leads with the room.
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="turn_events", db_index=False)
    anchor = models.ForeignKey(
        TranscriptEntry, null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    frame = models.JSONField()
    audience = models.CharField(max_length=8, choices=Audience.choices, default=Audience.EVERYONE)
    member_id = models.CharField(max_length=16, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("turn event")
        verbose_name_plural = _("turn events")
        ordering = ["id"]
        indexes = [models.Index(fields=["room", "anchor", "id"])]

    def __str__(self) -> str:
        return f"{self.frame.get('type', '?')} after #{self.anchor_id or 'root'}"

    def visible_to(self, *, member_id: str, is_keeper: bool) -> bool:
        """Whether a viewer may ever receive this event."""
        if self.audience == Audience.EVERYONE:
            return True
        return is_keeper or (bool(self.member_id) and self.member_id == member_id)

    @property
    def is_answer(self) -> bool:
        """Whether this is a command's answer to the whole table (`.inv give`, `.quest
        add`, `.coc`): a system line, kept for the carriers that replay it."""
        return self.frame.get("type") == "narrative" and self.frame.get("speaker") == Speaker.SYSTEM


class RoomBackup(models.Model):
    """A backup file of a room, under `<data dir>/room_backups/`.

    Each room's backups are in a folder of their own, and this index says which
    room a file belongs to: a keeper reaches only their own room's backups by name;
    the operator console sees them all. `room` is empty for a file the server found
    but cannot place (it names no room this server has): only the operator can
    restore it.
    """

    room = models.ForeignKey(Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="backups")
    room_name = models.CharField(max_length=64, blank=True)
    path = models.CharField(max_length=255, unique=True)
    size = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("room backup")
        verbose_name_plural = _("room backups")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.path

    @property
    def name(self) -> str:
        """The file name, which a keeper uses to name it (unique within its room)."""
        return self.path.rsplit("/", 1)[-1]


class BackupRun(models.Model):
    """One run of the scheduled backups (`manage.py backup_rooms`): what `/readyz` and
    `/metrics` report, as the run itself is another process that is gone by then."""

    finished_at = models.DateTimeField(auto_now_add=True)
    ok = models.BooleanField()
    rooms = models.PositiveIntegerField(default=0)
    failures = models.TextField(blank=True)  # one line per room that failed, and why

    class Meta:
        verbose_name = _("backup run")
        verbose_name_plural = _("backup runs")
        ordering = ["-finished_at", "-id"]

    def __str__(self) -> str:
        return f"{self.finished_at:%Y-%m-%d %H:%M} {'ok' if self.ok else 'failed'}"
