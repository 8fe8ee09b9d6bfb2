"""The table's enum-like choices, apart from its models: what a layer above names (the
wire compares a member's role, says who spoke and who may see a frame) without
importing the ORM's models. `rooms.models` re-exports each, so either import names the
same class."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    PLAYER = "player", _("player")
    KEEPER = "keeper", _("keeper")


class Speaker(models.TextChoices):
    PLAYER = "player", "player"
    KEEPER = "kp", "keeper"
    SYSTEM = "system", "system"
    NPC = "npc", "npc"


class Audience(models.TextChoices):
    EVERYONE = "all", "everyone"
    KEEPERS = "keepers", "keepers (and the member named)"
