"""Sheet commands: .coc .dnd (make a character), .st (show/change the sheet), .nn
(rename), .sc (sanity), .en (growth)."""

from __future__ import annotations

import re

from keeper import characters, game
from keeper.commands import Caller, CommandReply, command
from keeper.dice import DiceError
from keeper.models import TableSettings
from keeper.rules.packs import catalog
from loreweaver.i18n import _

_CHANGE = re.compile(r"^(?P<name>[^\d+=\-]+?)\s*(?P<op>\+=|-=|=|\+|-)?\s*(?P<amount>\d+)$")


def _no_character(caller: Caller) -> CommandReply:
    return CommandReply(
        caller.say(
            _("You have no active character here: make one with .coc or .dnd."),
        )
    )


def _make(word: str, arguments: str, caller: Caller) -> CommandReply:
    """Make a character of the rule system whose pack answers to `.word` (`make_char`)."""
    system = next((pack.id for pack in catalog().packs.values() if pack.make_char == word), None)
    if system is None:
        return CommandReply(caller.say(_("No rule system makes characters with .{w}."), w=word))
    name = arguments.strip()[:64] or caller.name
    character = characters.character_create(
        room_id=caller.room_id, member_id=caller.member_id, system=system, name=name
    )
    TableSettings.objects.filter(room_id=caller.room_id).update(system=system)
    # The database need not keep key order (Postgres JSONB does not): the pack's order is the sheet's.
    values = " ".join(f"{k}{character.attributes[k]}" for k in characters.pack_of(character).sheet.attributes)
    return CommandReply(
        caller.say(
            _("{who} made {name}: {values}"),
            who=caller.name,
            name=name,
            values=values,
        ),
        private=False,
    )


@command("coc", help=_("make a Call of Cthulhu character: .coc [name]"))
def make_coc(arguments: str, caller: Caller) -> CommandReply:
    return _make("coc", arguments, caller)


@command("dnd", help=_("make a D&D 5e character: .dnd [name]"))
def make_dnd(arguments: str, caller: Caller) -> CommandReply:
    return _make("dnd", arguments, caller)


@command("st", help=_("sheet: .st, .st STR60, .st HP-4, .st 侦查=70"))
def sheet(arguments: str, caller: Caller) -> CommandReply:
    """Show or change the caller's own active sheet."""
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return _no_character(caller)
    text = arguments.strip()
    if text == "clear":
        pack = characters.pack_of(character)
        character.attributes, character.resources = {}, {}
        character.skills = {k: v for k, v in pack.sheet.skills.items() if isinstance(v, int)}
        character.save(update_fields=["attributes", "resources", "skills"])
        return CommandReply(caller.say(_("{name}'s sheet is cleared."), name=character.name))
    if text in ("", "show"):
        pack = characters.pack_of(character)
        attributes = " ".join(f"{k}{character.attributes.get(k, 0)}" for k in pack.sheet.attributes)
        vitals = " ".join(
            f"{r['label']}{r['value']}" for r in characters.resources_for(character, caller.locale)
        )
        return CommandReply(f"{character.name}: {attributes} | {vitals}")
    changes = []
    for part in re.findall(r"[^\d\s+=\-]+\s*(?:\+=|-=|=|\+|-)?\s*\d+", text):
        match = _CHANGE.match(part.strip())
        if not match:
            continue
        operator = {"+=": "+", "-=": "-", None: "="}.get(match.group("op"), match.group("op"))
        try:
            key, old, new = characters.sheet_change(
                character, match.group("name"), operator, int(match.group("amount"))
            )
        except characters.SheetError as refused:
            return CommandReply(refused.message(caller.locale))
        changes.append(f"{key} {old}→{new}" if operator != "=" else f"{key}={new}")
    if not changes:
        return CommandReply(caller.say(_("Use .st STR60 or .st HP-4.")))
    return CommandReply(f"{character.name}: " + ", ".join(changes))


@command("nn", help=_("rename your character: .nn <name>"))
def rename(arguments: str, caller: Caller) -> CommandReply:
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return _no_character(caller)
    name = arguments.strip()[:64]
    if not name:
        return CommandReply(caller.say(_("Give the new name: .nn <name>")))
    old, character.name = character.name, name
    character.save(update_fields=["name"])
    return CommandReply(caller.say(_("{old} is now {new}."), old=old, new=name), private=False)


@command("sc", help=_("sanity check: .sc 1/1d6"))
def sanity(arguments: str, caller: Caller) -> CommandReply:
    match = re.match(
        r"^(?:(?P<bp>[bp])(?P<n>\d?)\s+)?(?P<ok>[^/\s]+)/(?P<fail>\S+)$", arguments.strip(), re.I
    )
    actor = game.Actor.member(caller.room_id, caller.member_id, caller.name)
    if actor.character is None:
        return _no_character(caller)
    if not match:
        return CommandReply(caller.say(_("Use .sc <success loss>/<failure loss>, as in .sc 1/1d6.")))
    count = int(match.group("n") or 1) if match.group("bp") else 0
    bonus, penalty = (count, 0) if (match.group("bp") or "").lower() == "b" else (0, count)
    try:
        checked = game.sanity_check(
            actor, match.group("ok"), match.group("fail"), bonus=bonus, penalty=penalty
        )
    except (DiceError, game.GameError) as refused:
        return CommandReply(refused.message(caller.locale))
    result = checked.result
    assert result is not None
    text = caller.say(
        _("{who}: sanity {roll}/{san}, loses {loss} ({remaining} left)"),
        who=actor.character.name,
        roll=result.roll.value,
        san=checked.sanity,
        loss=result.loss,
        remaining=result.remaining,
    )
    if result.temporary_insanity_hint:
        text += caller.say(_(" — 5 or more: temporary insanity may follow."))
    return CommandReply(text, private=False, events=checked.events)


@command("en", help=_("skill growth: .en 侦查"))
def grow(arguments: str, caller: Caller) -> CommandReply:
    actor = game.Actor.member(caller.room_id, caller.member_id, caller.name)
    if actor.character is None:
        return _no_character(caller)
    try:
        grown = game.growth(actor, arguments.strip())
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _("{who}: {key} {roll}/{value} → {new}"),
            who=actor.character.name,
            key=grown.skill,
            roll=grown.roll,
            value=grown.before,
            new=grown.after,
        ),
        private=False,
    )
