"""The keeper's hand on the story: `.scene <place>` moves the party, `.dmg <name> <n>`
costs a character hit points. Both are keeper-only and public, and each is kept in the
room's chronicle like a turn of play (the SideQuest carrier's `/gm teleport` and
`/gm dmg` are these commands, docs/sidequest.md)."""

from __future__ import annotations

import re

from base.i18n import _
from keeper import characters, chronicle
from keeper.commands import Caller, CommandReply, command
from keeper.kp.tools import find_character
from keeper.models import Story

SCENE_CHARS = 200  # Story.scene_name's length
# ASCII digits only: `str.isdigit` also accepts "²" or "٣", which `int` refuses or reads
# differently; a hit is a handful of points, so six digits are plenty.
_AMOUNT = re.compile(r"[0-9]{1,6}")


@command(
    "scene",
    help=_("keeper: .scene <place> moves the party there; .scene shows where it is"),
    keeper_only=True,
)
def scene(arguments: str, caller: Caller) -> CommandReply:
    """Show the room's scene, or move the party to the place named."""
    place = " ".join(arguments.split())[:SCENE_CHARS]
    story = Story.of(caller.room_id)
    if not place:
        if not story.scene_name:
            return CommandReply(caller.say(_("No scene is set. Use .scene <place>.")))
        return CommandReply(caller.say(_("The party is at {place}."), place=story.scene_name))
    story.scene_name, story.scene_focus = place, ""
    story.save(update_fields=["scene_name", "scene_focus"])
    said = caller.say(_("The party is now at {place}."), place=place)
    chronicle.record(caller.room_id, chronicle.Turn(caller.name, f".scene {place}", said))
    return CommandReply(said, private=False)


@command("dmg", help=_("keeper: .dmg <name> <n>, a character loses n hit points"), keeper_only=True)
def damage(arguments: str, caller: Caller) -> CommandReply:
    """A character of the room loses hit points (never below zero)."""
    name, _space, amount = arguments.strip().rpartition(" ")
    name = name.strip()
    if not name or not amount:
        return CommandReply(caller.say(_("Use .dmg <name> <n>, as in .dmg Pip 3.")))
    if not _AMOUNT.fullmatch(amount):
        return CommandReply(
            caller.say(
                _("{amount} is not an amount of damage: write it with the digits 0-9, as in .dmg Pip 3."),
                amount=amount[:20],
            )
        )
    character = find_character(caller.room_id, name)
    if character is None:
        return CommandReply(caller.say(_("Nobody called {name} is at the table."), name=name[:64]))
    try:
        _key, old, new = characters.sheet_change(character, "hp", "-", int(amount))
    except characters.SheetError as refused:
        return CommandReply(refused.message(caller.locale))
    said = caller.say(
        _("{name} takes {amount} damage ({old} → {new})."),
        name=character.name,
        amount=int(amount),
        old=old,
        new=new,
    )
    chronicle.record(caller.room_id, chronicle.Turn(caller.name, f".dmg {character.name} {amount}", said))
    return CommandReply(said, private=False)
