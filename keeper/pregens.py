"""The pregenerated cast: `.pc list`, `.pc claim <name>`, `.pc release [name]`."""

from __future__ import annotations

from django.db import transaction

from base.i18n import _
from base.names import same_name_key
from keeper import character_names
from keeper.commands import Caller, CommandReply, command
from keeper.models import Character


@command(
    "pc",
    help=_("pregens: .pc list, .pc claim <name>, .pc release"),
)
def pregens(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, name = arguments.strip().partition(" ")
    word, name = word.lower(), name.strip()
    roster = Character.objects.filter(room_id=caller.room_id, pregen=True)
    if word in ("", "list"):
        if not roster.exists():
            return CommandReply(caller.say(_("This table has no pregenerated characters.")))
        lines = [
            f"{c.name}: " + (caller.say(_("free")) if not c.owner else caller.say(_("claimed")))
            for c in roster
        ]
        return CommandReply("\n".join(lines))
    if word == "claim":
        with transaction.atomic():
            key = same_name_key(name)
            chosen = next((c for c in roster.select_for_update() if same_name_key(c.name) == key), None)
            if chosen is None:
                return CommandReply(caller.say(_("No pregen called {n}."), n=name))
            if chosen.owner and chosen.owner != caller.member_id:
                return CommandReply(caller.say(_("{n} is already claimed."), n=chosen.name))
            # Two of one name never stand in one party (docs/rules.md,
            # "Characters and their names"): a sheet made before the rule may share a
            # pregen's name.
            twins = character_names.holders(caller.room_id, chosen.name, besides=chosen.pk)
            if twins:
                taken = character_names.NameTaken(twins[0].name, "other")
                return CommandReply(
                    character_names.refusal(taken, caller.locale, lambda other: f".pc claim {other}")
                )
            Character.objects.filter(room_id=caller.room_id, owner=caller.member_id, active=True).update(
                active=False
            )
            chosen.owner, chosen.active = caller.member_id, True
            chosen.save(update_fields=["owner", "active"])
        return CommandReply(caller.say(_("{who} plays {n}."), who=caller.name, n=chosen.name), private=False)
    if word == "release":
        mine = roster.filter(owner=caller.member_id) if not name else roster.filter(name=name)
        chosen = mine.first()
        if chosen is None:
            return CommandReply(caller.say(_("Nothing to release.")))
        if chosen.owner != caller.member_id and not caller.is_keeper:
            return CommandReply(caller.say(_("Only the keeper can release another's character.")))
        chosen.owner, chosen.active = "", False
        chosen.save(update_fields=["owner", "active"])
        return CommandReply(caller.say(_("{n} is free again."), n=chosen.name), private=False)
    return CommandReply(
        caller.say(
            _("Use .pc list, .pc claim <name> or .pc release."),
        )
    )
