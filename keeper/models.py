"""The game's own state per room: settings, characters, initiative, the story and its
NPCs, the Keeper's notes, and the server's LLM configuration."""

from __future__ import annotations

import re

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from rooms.models import Room


class TableSettings(models.Model):
    """Per-room game settings the keeper chooses (kept by `admin_reset_room`)."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="table_settings")
    system = models.CharField(max_length=32, default="coc7")
    house_rule = models.CharField(max_length=8, default="0")
    language = models.CharField(
        max_length=2, default="", blank=True, help_text="en or zh; empty: the server's"
    )
    # Keeper skills enabled in this room (ids from `keeper.skill_catalog`).
    skills = models.JSONField(default=list, blank=True)
    # Whether a Keeper bot (a model, or the offline Keeper) answers the room's lines;
    # off, a human keeper narrates (`.bot off`).
    bot = models.BooleanField(default=True)
    # How lines of play take turns: "free" (each line is answered), or "structured"
    # (the Keeper answers once every connected player has acted, or the round's time
    # is up: `.turns structured [seconds]`).
    turn_mode = models.CharField(max_length=10, default="free")
    round_seconds = models.PositiveIntegerField(default=60)
    # A `.reset` waiting for `.reset confirm`.
    pending_reset = models.CharField(max_length=8, blank=True)
    pending_reset_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("table settings")
        verbose_name_plural = _("table settings")

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
    # What the character carries: [{name, kind, quantity, equipped, description}], in
    # the order it came (`keeper.inventory` keeps the shape); money in the pack's currency.
    items = models.JSONField(default=list, blank=True)
    money = models.IntegerField(default=0)
    background = models.TextField(blank=True, help_text="who they are (from an imported card)")
    # The portrait: {hash, mime, size, name} of an image of this room (`avatar_set`).
    avatar = models.JSONField(null=True, blank=True)
    active = models.BooleanField(default=False)
    pregen = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("character")
        verbose_name_plural = _("characters")
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


class Quest(models.Model):
    """What the party pursues in a room (`keeper.quests`): its status in the SideQuest
    client's words, a line of description, and whether only keepers know of it."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", _("in progress")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="quests")
    name = models.CharField(max_length=100)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.IN_PROGRESS)
    description = models.CharField(max_length=300, blank=True)
    secret = models.BooleanField(default=False, help_text="keeper-only: players never see it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("quest")
        verbose_name_plural = _("quests")
        ordering = ["room", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "name"], name="one_quest_per_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


class InitiativeEntry(models.Model):
    """One combatant in the room's initiative order (`.ri`)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="initiative")
    name = models.CharField(max_length=64)
    value = models.IntegerField()
    tiebreak = models.IntegerField(default=0)
    current = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("initiative entry")
        verbose_name_plural = _("initiative entries")
        ordering = ["room", "-value", "-tiebreak", "id"]
        constraints = [models.UniqueConstraint(fields=["room", "name"], name="one_initiative_entry_per_name")]

    def __str__(self) -> str:
        return f"{self.name} {self.value}"


class Story(models.Model):
    """Where the room's story stands: the module it plays, the scene, the clock, and
    what the Keeper's turns have cost so far.

    `module_truth` is the keeper's secret (what is really going on); it goes into the
    Keeper's prompt and into keeper-only replies, never into a player's frame.
    """

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="story")
    module_id = models.CharField(max_length=64, blank=True, help_text="e.g. sample for the built-in one")
    module_title = models.CharField(max_length=200, blank=True)
    module_intro = models.TextField(blank=True, help_text="what the players may know at the start")
    module_truth = models.TextField(blank=True, help_text="keeper-only")
    # How far a scripted module (the offline sample Keeper's) has got.
    progress = models.PositiveIntegerField(default=0)
    scene_name = models.CharField(max_length=200, blank=True)
    scene_focus = models.CharField(max_length=200, blank=True)
    clock_minutes = models.IntegerField(null=True, blank=True, help_text="story time since day 1 00:00")
    # Token counts summed over the room's session; `context_*` describe the last AI turn.
    ai_turns = models.PositiveIntegerField(default=0)
    context_tokens = models.PositiveIntegerField(default=0)
    context_window = models.PositiveIntegerField(default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    cache_hit_tokens = models.PositiveBigIntegerField(default=0)
    cache_miss_tokens = models.PositiveBigIntegerField(default=0)

    # The counters `state.usage` reports (and a story reset sets back to zero).
    USAGE_FIELDS = (
        "ai_turns",
        "context_tokens",
        "context_window",
        "input_tokens",
        "output_tokens",
        "cache_hit_tokens",
        "cache_miss_tokens",
    )

    class Meta:
        verbose_name = _("story")
        verbose_name_plural = _("stories")

    def __str__(self) -> str:
        return f"{self.room.name}: {self.module_title or 'no module'}"

    @classmethod
    def of(cls, room_id: int) -> Story:
        """The room's story, created empty on first use."""
        story, _ = cls.objects.get_or_create(room_id=room_id)
        return story

    def clock_text(self, locale: str = "en") -> str:
        """The story time as players read it: `Day 2, 21:40` (`第2天 21:40` in Chinese)."""
        minutes = self.clock_minutes or 0
        day, rest = divmod(minutes, 24 * 60)
        time = f"{rest // 60:02d}:{rest % 60:02d}"
        return f"第{day + 1}天 {time}" if locale == "zh" else f"Day {day + 1}, {time}"


class StateStamp(models.Model):
    """How many times the parts of a room that `state` shows (characters, initiative,
    story) have changed: database triggers count every write to those tables, by any
    writer (a turn, the admin, another process, a bulk update), so a refresh can tell
    from one tiny read whether the room must be read again (`keeper.state`).

    No foreign key: a deleted room's rows fire the triggers while it goes.
    """

    room_id = models.IntegerField(primary_key=True)
    version = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("state stamp")
        verbose_name_plural = _("state stamps")


class Npc(models.Model):
    """A keeper-authored non-player character. `persona` is how they look and talk;
    `secret` is what only they and the keeper know. An NPC is voiced from its own
    record alone, never from another NPC's or the module's secrets."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="npcs")
    name = models.CharField(max_length=64)
    persona = models.TextField(blank=True)
    secret = models.TextField(blank=True, help_text="keeper-only")

    class Meta:
        verbose_name = _("NPC")
        verbose_name_plural = _("NPCs")
        ordering = ["room", "name"]
        constraints = [models.UniqueConstraint(fields=["room", "name"], name="one_npc_per_name")]

    def __str__(self) -> str:
        return self.name


class KeeperNote(models.Model):
    """A note the Keeper (AI or human) keeps for itself; never shown to players."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="keeper_notes")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("keeper note")
        verbose_name_plural = _("keeper notes")
        ordering = ["room", "id"]

    def __str__(self) -> str:
        return self.text[:60]


class ModelSetting(models.Model):
    """A choice of model over the `TRPG_LLM__*` environment: the operator's server-wide
    row (no room, set on the console's model page) or one room's own (set by its
    keeper's `.model` and model screen; it falls back to the server-wide choice).

    Empty fields fall back (keeper/llm/config.py says how). Keys live in
    `ProviderCredential`, each bound to the endpoint, and the room, it was saved for.
    """

    room = models.OneToOneField(
        Room, null=True, blank=True, on_delete=models.CASCADE, related_name="model_setting"
    )
    provider = models.CharField(max_length=32, blank=True)
    chat_model = models.CharField(max_length=200, blank=True)
    base_url = models.CharField(max_length=500, blank=True)
    # The OpenAI-compatible image endpoint (its key is in the same credential book).
    imagegen_provider = models.CharField(max_length=32, blank=True)
    imagegen_base_url = models.CharField(max_length=500, blank=True)
    imagegen_model = models.CharField(max_length=200, blank=True)
    imagegen_size = models.CharField(max_length=20, blank=True)
    # The operator's word on rooms using a keeper's own subscription (`.model login`),
    # on the server-wide row only: None follows `TRPG_LLM__SUBSCRIPTIONS`.
    subscriptions = models.BooleanField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("model setting")
        verbose_name_plural = _("model settings")

    def __str__(self) -> str:
        return f"{self.provider or '(environment)'} {self.chat_model}".strip()

    @classmethod
    def current(cls) -> ModelSetting:
        """The server-wide row (the operator's), created empty on first use."""
        setting = cls.objects.filter(room__isnull=True).order_by("pk").first()
        return setting if setting is not None else cls.objects.create(room=None)

    @classmethod
    def of_room(cls, room_id: int) -> ModelSetting:
        """The room's own row, created empty on first use."""
        setting, _ = cls.objects.get_or_create(room_id=room_id)
        return setting


class ProviderCredential(models.Model):
    """An API key saved for one provider AND one endpoint: it is only ever sent to
    the `base_url` it was saved with. A room's key (saved by its keeper) serves that
    room only; a key without a room is the operator's, for every room."""

    room = models.ForeignKey(Room, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=32)
    base_url = models.CharField(max_length=500)
    api_key = models.CharField(max_length=500)
    # A subscription's sign-in (`.model login`), sealed with the server's secret
    # (keeper/llm/grants.py); empty for a plain key. Its tokens are never read back
    # anywhere but into the request that needs them.
    grant = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("provider credential")
        verbose_name_plural = _("provider credentials")
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "base_url"],
                condition=models.Q(room__isnull=True),
                name="one_server_key_per_provider_endpoint",
            ),
            models.UniqueConstraint(
                fields=["room", "provider", "base_url"],
                condition=models.Q(room__isnull=False),
                name="one_room_key_per_provider_endpoint",
            ),
        ]

    def __str__(self) -> str:
        scope = f" ({self.room})" if self.room_id else ""
        return f"{self.provider} @ {self.base_url}{scope}"


class ModuleVariable(models.Model):
    """A deterministic module variable of a room (a day counter, a clue found, the
    cult's alertness), declared by a module or a pack, or set by the keeper.

    Players see only the exposed ones (`state.variables`); keepers see all, the
    unexposed flagged hidden. `initial` is where a story reset puts the value back.
    """

    class Kind(models.TextChoices):
        NUMBER = "number"
        BOOL = "bool"
        TEXT = "text"
        ENUM = "enum"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="variables")
    var_id = models.CharField(max_length=120)
    label = models.JSONField(default=dict, help_text="{en, zh}")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    value = models.JSONField()
    initial = models.JSONField()
    minimum = models.IntegerField(null=True, blank=True)
    maximum = models.IntegerField(null=True, blank=True)
    choices = models.JSONField(default=list, blank=True, help_text="the values of an enum")
    exposed = models.BooleanField(default=False, help_text="players see it")
    source = models.CharField(max_length=80, blank=True, help_text="the pack or module that declared it")

    class Meta:
        verbose_name = _("module variable")
        verbose_name_plural = _("module variables")
        ordering = ["room", "id"]
        constraints = [
            models.UniqueConstraint(fields=["room", "var_id"], name="one_variable_per_id_per_room")
        ]

    def __str__(self) -> str:
        return f"{self.var_id}={self.value!r}"


class LoreEntry(models.Model):
    """A fact of a room's world the Keeper is reminded of when it matters: always
    (`constant`), or when one of its keywords comes up in the recent story (with a
    `secondary` keyword too when `selective`). Imported from SillyTavern lorebooks
    (`.import <ref> world`). Keeper-only entries reach only the Keeper's reasoning."""

    class Visibility(models.TextChoices):
        EVERYONE = "everyone"
        KEEPERS = "keepers"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="lore")
    title = models.CharField(max_length=200)
    keywords = models.JSONField(default=list, blank=True)
    secondary = models.JSONField(default=list, blank=True, help_text="for a selective entry")
    content = models.TextField()
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.KEEPERS)
    constant = models.BooleanField(default=False, help_text="always in the Keeper's brief")
    selective = models.BooleanField(default=False, help_text="needs a secondary keyword too")
    order = models.IntegerField(default=100, help_text="lower comes first in the brief")
    source = models.CharField(max_length=200, blank=True, help_text="the card or module it came from")
    # The entry's vector from the embeddings model named beside it (none when off).
    embedding = models.JSONField(null=True, blank=True, editable=False)
    embedded_with = models.CharField(max_length=120, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("lore entry")
        verbose_name_plural = _("lore entries")
        ordering = ["room", "order", "id"]
        indexes = [models.Index(fields=["room", "order"])]

    def __str__(self) -> str:
        return self.title


# A chronicle entry the table saw nothing of (a hidden roll): only keepers know of it,
# so what players read (`.recap`, the summary, a journal's turn numbers) leaves it out.
# Such an entry has no line; one written by an earlier version (or restored from its
# backup) kept the `.rh` line typed, beside the hidden roll among its keeper facts.
HIDDEN_ROLL_LINE = r"^[.。/]rh"
UNSEEN_BY_THE_TABLE = Q(outcome="", dice=[], npc_lines=[], told=[]) & (
    Q(line="") | (Q(line__iregex=HIDDEN_ROLL_LINE) & ~Q(keeper_facts=""))
)


class ChronicleEntry(models.Model):
    """One finished turn of a room, as the campaign remembers it: who acted, what the
    table saw (the line, the outcome, the public rolls, the NPCs' lines, the scene and
    the clock), and apart from it what only the keepers know (`keeper_facts`)."""

    # Indexed by the (room, id) index below, which leads with the room.
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="chronicle", db_index=False)
    actor = models.CharField(max_length=64)
    line = models.TextField(blank=True, help_text="what the actor said or did")
    outcome = models.TextField(blank=True, help_text="the narration the table saw")
    dice = models.JSONField(default=list, blank=True, help_text="the public rolls, as short lines")
    npc_lines = models.JSONField(default=list, blank=True)
    told = models.JSONField(
        default=list,
        blank=True,
        help_text="the Keeper's lines, the public rolls and the NPCs' lines, in the order told",
    )
    scene = models.CharField(max_length=200, blank=True)
    clock = models.CharField(max_length=64, blank=True)
    keeper_facts = models.TextField(blank=True, help_text="keepers only: hidden rolls, notes")
    # The last transcript line of the turn: the summary covers the story up to here.
    last_line_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("chronicle entry")
        verbose_name_plural = _("chronicle entries")
        ordering = ["room", "id"]
        indexes = [models.Index(fields=["room", "id"])]

    def __str__(self) -> str:
        return f"{self.actor}: {self.line[:60]}"

    def seen_by_the_table(self) -> bool:
        """Whether the table saw anything of this turn (`UNSEEN_BY_THE_TABLE`, in Python)."""
        if self.outcome or self.dice or self.npc_lines or self.told:
            return True
        hidden_roll = bool(self.keeper_facts) and re.match(HIDDEN_ROLL_LINE, self.line, re.IGNORECASE)
        return bool(self.line) and not hidden_roll

    def public_text(self) -> str:
        """The entry as a player may read it, on one line: never a keeper-only fact; empty
        for a turn the table saw nothing of (a hidden roll). What the turn told reads in
        the order it was told (an entry written before that was kept: the rolls, the
        NPCs' lines, then the narration)."""
        if not self.seen_by_the_table():
            return ""
        parts = [f"{self.actor}: {self.line}".strip()]
        if self.told:
            parts += self.told
        else:
            parts += [f"({roll})" for roll in self.dice]
            parts += list(self.npc_lines)
            parts.append(self.outcome)
        return " ".join(" ".join(parts).split())


class CampaignSummary(models.Model):
    """A room's rolling summary: the story up to transcript line `through_line_id`,
    folded so the Keeper's brief stays within the model's window. `text` is written
    from what the table saw only (it is what `.recap` reads); `keeper_digest` keeps
    the keeper-only facts of the folded turns, for the Keeper's reasoning."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="summary")
    text = models.TextField(blank=True)
    keeper_digest = models.TextField(blank=True)
    through_line_id = models.BigIntegerField(default=0)
    folds = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("campaign summary")
        verbose_name_plural = _("campaign summaries")

    def __str__(self) -> str:
        return f"summary of {self.room_id} through #{self.through_line_id}"
