"""Sheet commands: .coc .dnd (make a character), .genchar (roll one to look at first),
.st (show, change, finalize or delete the sheet), .nn (rename), .bio (background), .sc
(sanity), .en (growth)."""

from __future__ import annotations

import re
from dataclasses import asdict

from django.core.cache import cache

from base.i18n import _
from keeper import characters, game
from keeper.commands import Caller, CommandReply, command
from keeper.dice import DiceError
from keeper.models import TableSettings
from keeper.rules.packs import catalog

_CHANGE = re.compile(r"^(?P<name>[^\d+=\-]+?)\s*(?P<op>\+=|-=|=|\+|-)?\s*(?P<amount>\d+)$")


def no_character(caller: Caller) -> CommandReply:
    """The answer to a sheet command from someone with no active character."""
    return CommandReply(
        caller.say(
            _("You have no active character here: make one with .coc or .dnd."),
        )
    )


def _made(caller: Caller, character: characters.Character) -> CommandReply:
    TableSettings.objects.filter(room_id=caller.room_id).update(system=character.system)
    return CommandReply(
        caller.say(
            _("{who} made {name}: {values}"),
            who=caller.name,
            name=character.name,
            values=characters.describe(character, caller.locale),
        ),
        private=False,
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
    return _made(caller, character)


@command("coc", help=_("make a Call of Cthulhu character: .coc [name]"))
def make_coc(arguments: str, caller: Caller) -> CommandReply:
    return _make("coc", arguments, caller)


@command("dnd", help=_("make a D&D 5e character: .dnd [name]"))
def make_dnd(arguments: str, caller: Caller) -> CommandReply:
    return _make("dnd", arguments, caller)


@command(
    "st",
    help=_("sheet: .st, .st STR60, .st HP-4, .st 侦查=70, .st finalize, .st delete, .st undo"),
)
def sheet(arguments: str, caller: Caller) -> CommandReply:
    """Show or change the caller's own active sheet."""
    text = arguments.strip()
    if text.lower() == "undo":
        return _undo(caller)
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return no_character(caller)
    if text.lower() in DELETE_WORDS:
        return _delete(character, caller)
    if text == "finalize":
        characters.finalize(character)
        return CommandReply(
            caller.say(
                _("{name} is finalized: {values}"),
                name=character.name,
                values=characters.describe(character, caller.locale),
            )
        )
    if text in ("", "show"):
        return CommandReply(f"{character.name}: {characters.describe(character, caller.locale)}")
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
        return CommandReply(
            caller.say(_("Use .st STR60 or .st HP-4 (or .st finalize, .st delete, .st undo)."))
        )
    return CommandReply(f"{character.name}: " + ", ".join(changes))


# What deletes the sheet (as the reference clients send it: one word, their own
# confirmation already asked), how long `.st undo` can bring it back, and how long a
# rolled `.genchar` waits for `keep`.
DELETE_WORDS = ("delete", "del", "clear", "clr", "delete confirm")
UNDO_SECONDS = 300
DRAFT_SECONDS = 600


def _undo_key(caller: Caller) -> str:
    return f"st-undo:{caller.room_id}:{caller.member_id}"


def _delete(character: characters.Character, caller: Caller) -> CommandReply:
    """Delete the caller's active character at once, kept `UNDO_SECONDS` for `.st undo`."""
    cache.set(_undo_key(caller), characters.sheet_snapshot(character), UNDO_SECONDS)
    characters.character_delete(character)
    return CommandReply(
        caller.say(
            _("{who} deleted {name}. Changed your mind? .st undo brings it back within 5 minutes."),
            who=caller.name,
            name=character.name,
        ),
        private=False,
    )


def _undo(caller: Caller) -> CommandReply:
    """Bring back the character the caller deleted in the last few minutes."""
    snapshot = cache.get(_undo_key(caller))
    if snapshot is None:
        return CommandReply(caller.say(_("Nothing to undo: a deleted sheet is kept for 5 minutes.")))
    cache.delete(_undo_key(caller))
    character = characters.sheet_restore(caller.room_id, caller.member_id, snapshot)
    return CommandReply(
        caller.say(_("{who} brought {name} back."), who=caller.name, name=character.name), private=False
    )


@command(
    "genchar",
    help=_(
        "roll a random character to look at: .genchar [coc|dnd], then .genchar keep [name]; "
        "or make one at once from a description: .genchar [system] [name] | <description>"
    ),
)
def generate(arguments: str, caller: Caller) -> CommandReply:
    """Roll a character by the pack's creation rules and show it; `keep` makes it yours.
    With `| description` (the terminal client's "Generate from description"), the
    character is made at once: the name given, the description as its background."""
    if "|" in arguments:
        return _from_description(arguments, caller)
    draft_key = f"genchar:{caller.room_id}:{caller.member_id}"
    word, _space, rest = arguments.strip().partition(" ")
    if word.lower() == "keep":
        draft = cache.get(draft_key)
        if draft is None:
            return CommandReply(caller.say(_("Nothing to keep: roll one with .genchar first.")))
        cache.delete(draft_key)
        character = characters.character_create(
            room_id=caller.room_id,
            member_id=caller.member_id,
            system=draft["system"],
            name=rest.strip()[:64] or caller.name,
            rolled=characters.Rolled(**draft),
        )
        return _made(caller, character)
    system = _system_named(word, caller.room_id)
    if system is None:
        names = ", ".join(sorted(p.make_char or p.id for p in catalog().packs.values()))
        return CommandReply(caller.say(_("No rule system is called {w}: try {names}."), w=word, names=names))
    rolled = characters.roll_character(system)
    cache.set(draft_key, asdict(rolled), DRAFT_SECONDS)
    return CommandReply(
        caller.say(
            _(
                "Rolled ({system}): {values}. "
                "Type .genchar keep [name] to keep it, or .genchar to roll again."
            ),
            system=catalog().packs[system].name.pick(caller.locale),
            values=characters.describe(rolled, caller.locale),
        )
    )


def _from_description(arguments: str, caller: Caller) -> CommandReply:
    """`.genchar [system] [name] | <description>`: values rolled by the pack, the name
    and the description kept. A first word that names no rule system is part of the name."""
    head, _bar, description = arguments.partition("|")
    description = description.strip()
    if not description:
        return CommandReply(
            caller.say(_("Describe the character after the bar: .genchar coc Ada | a calm doctor"))
        )
    first, _space, rest = head.strip().partition(" ")
    system = _system_named(first, caller.room_id) if first else None
    name = rest if system else head
    system = system or TableSettings.of(caller.room_id).system
    character = characters.character_create(
        room_id=caller.room_id,
        member_id=caller.member_id,
        system=system,
        name=name.strip()[:64] or caller.name,
        background=description,
    )
    return _made(caller, character)


def _system_named(word: str, room_id: int) -> str | None:
    """The pack a `.genchar` argument names (its id or its make-a-character word); none
    named: the room's system."""
    if not word:
        return TableSettings.of(room_id).system
    for pack in catalog().packs.values():
        if word.lower() in (pack.id.lower(), (pack.make_char or "").lower()):
            return pack.id
    return None


@command("nn", help=_("rename your character: .nn <name>"))
def rename(arguments: str, caller: Caller) -> CommandReply:
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return no_character(caller)
    name = arguments.strip()[:64]
    if not name:
        return CommandReply(caller.say(_("Give the new name: .nn <name>")))
    old, character.name = character.name, name
    character.save(update_fields=["name"])
    return CommandReply(caller.say(_("{old} is now {new}."), old=old, new=name), private=False)


@command("bio", help=_("your character's background: .bio <text> (alone: show it)"))
def biography(arguments: str, caller: Caller) -> CommandReply:
    """Show or write the caller's active character's background."""
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return no_character(caller)
    text = arguments.strip()
    if not text:
        if character.background:
            return CommandReply(f"{character.name}: {character.background}")
        return CommandReply(
            caller.say(_("{name} has no background yet: .bio <text> writes one."), name=character.name)
        )
    character.background = text[:4000]
    character.save(update_fields=["background"])
    return CommandReply(caller.say(_("{name}'s background is written."), name=character.name))


@command("sc", help=_("sanity check: .sc 1/1d6"))
def sanity(arguments: str, caller: Caller) -> CommandReply:
    match = re.match(
        r"^(?:(?P<bp>[bp])(?P<n>\d?)\s+)?(?P<ok>[^/\s]+)/(?P<fail>\S+)$", arguments.strip(), re.I
    )
    actor = game.Actor.member(caller.room_id, caller.member_id, caller.name)
    if actor.character is None:
        return no_character(caller)
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
        return no_character(caller)
    try:
        grown = game.growth(actor, arguments.strip())
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _("{who}: {key} {roll}/{value} → {new}"),
            who=actor.character.name,
            key=actor.pack().sheet.skill_label(grown.skill, caller.locale),
            roll=grown.roll,
            value=grown.before,
            new=grown.after,
        ),
        private=False,
    )
