"""Sheet commands: .coc .dnd (make a character), .genchar (roll one to look at first),
.st (show, change, finalize or delete the sheet), .nn (rename), .bio (background), .sc
(sanity), .en (growth)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from django.core.cache import cache

from base.i18n import _
from keeper import character_names, characters, game
from keeper.commands import Caller, CommandReply, command
from keeper.dice import DiceError
from keeper.kp import sample
from keeper.models import TableSettings
from keeper.rules.packs import catalog

# `.st STR60 Spot Hidden 70 HP-4`: each change is a name (words, spaces between them),
# an operator and an amount. Read by splitting at the amounts, in one pass: a pattern
# that matched a whole change took time that grows with the square of a line without
# digits (a third of a second of a database thread for a 4,000-character `.st`).
_AMOUNTS = re.compile(r"(\d+)")
_OPERATORS = ("+=", "-=", "=", "+", "-")


def sheet_changes(text: str) -> list[tuple[str, str | None, int]]:
    """The (name, operator or None, amount) of each change a `.st` line asks for, in
    order: before each run of digits, the operator it ends with (spaces around it
    allowed) and the name just before that; text that names nothing is skipped."""
    changes = []
    pieces = _AMOUNTS.split(text)
    for before, amount in zip(pieces[0::2], pieces[1::2], strict=False):
        head = before.rstrip()
        operator = next((op for op in _OPERATORS if head.endswith(op)), None)
        if operator:
            head = head[: -len(operator)].rstrip()
        # The name is what follows the last operator sign: a name holds none.
        name = head[max(head.rfind(sign) for sign in "+=-") + 1 :].strip()
        if name:
            changes.append((name, operator, int(amount)))
    return changes


def no_character(caller: Caller) -> CommandReply:
    """The answer to a sheet command from someone with no active character."""
    return CommandReply(
        caller.say(
            _("You have no active character here: make one with .coc or .dnd."),
        )
    )


def _made(caller: Caller, made: characters.Made) -> CommandReply:
    character = sample.made_ready(caller.room_id, made.character)
    # The room rolls in the system of the character made last, unless it plays the sample
    # adventure: that is a Call of Cthulhu adventure whatever a player makes.
    if not sample.plays_sample(caller.room_id):
        TableSettings.objects.filter(room_id=caller.room_id).update(system=character.system)
    text = caller.say(
        _("{who} made {name}: {values}"),
        who=caller.name,
        name=character.name,
        values=characters.describe(character, caller.locale),
    )
    if made.replaced:
        text += "\n" + character_names.gave_way(caller.locale, character.name)
    return CommandReply(text, private=False)


def _make_character(
    caller: Caller, retry: Callable[[str], str], *, replace: bool, **making: Any
) -> characters.Made | str:
    """`characters.character_create` for the caller, or what they are told when the
    name is taken (`retry(name)` is their command with another name in it)."""
    try:
        return characters.character_create(
            room_id=caller.room_id, member_id=caller.member_id, replace=replace, **making
        )
    except character_names.NameTaken as taken:
        return character_names.refusal(taken, caller.locale, retry)


def _make(word: str, arguments: str, caller: Caller) -> CommandReply:
    """Make a character of the rule system whose pack answers to `.word` (`make_char`)."""
    system = next((pack.id for pack in catalog().packs.values() if pack.make_char == word), None)
    if system is None:
        return CommandReply(caller.say(_("No rule system makes characters with .{w}."), w=word))
    typed, replace = character_names.without_replace(arguments)
    made = _make_character(
        caller,
        lambda name: f".{word} {name}",
        replace=replace,
        system=system,
        name=character_names.chosen_name(typed, caller.name),
    )
    return _made(caller, made) if isinstance(made, characters.Made) else CommandReply(made)


@command("coc", help=_("make a Call of Cthulhu character: .coc [name]"))
def make_coc(arguments: str, caller: Caller) -> CommandReply:
    return _make("coc", arguments, caller)


@command("dnd", help=_("make a D&D 5e character: .dnd [name]"))
def make_dnd(arguments: str, caller: Caller) -> CommandReply:
    return _make("dnd", arguments, caller)


@command(
    "st",
    help=_(
        "sheet: .st (every value, by the names you can type), .st STR60, .st HP-4, "
        ".st Spot Hidden 70, .st finalize, .st delete, .st undo"
    ),
)
def sheet(arguments: str, caller: Caller) -> CommandReply:
    """Show or change the caller's own active sheet."""
    text = arguments.strip()
    word, _space, rest = text.partition(" ")
    if word.lower() == "undo":
        return _undo(rest, caller)
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
    if text.lower() in ("", "show", "list"):
        return CommandReply(_listing(character, caller))
    changes = []
    for name, asked, amount in sheet_changes(text):
        operator = {"+=": "+", "-=": "-", None: "="}.get(asked, asked)
        try:
            key, old, new = characters.sheet_change(character, name, operator, amount)
        except characters.SheetError as refused:
            return CommandReply(refused.message(caller.locale))
        word = characters.sheet_word(characters.pack_of(character).sheet, key, caller.locale)
        changes.append(f"{word} {old}→{new}" if operator != "=" else f"{word}={new}")
    if not changes:
        return CommandReply(
            caller.say(_("Use .st STR60 or .st HP-4 (or .st finalize, .st delete, .st undo)."))
        )
    return CommandReply(f"{character.name}: " + ", ".join(changes))


def _listing(character: characters.Character, caller: Caller) -> str:
    """`.st`: the sheet's values by group, each under the name the caller may type."""
    pack = characters.pack_of(character)
    lines = [f"{character.name} ({pack.name.pick(caller.locale)})"]
    lines += [
        caller.say(_("{group}: {entries}"), group=caller.say(title), entries=", ".join(entries))
        for title, entries in characters.listing(character, caller.locale)
    ]
    return "\n".join(lines)


# What deletes the sheet (as the reference clients send it: one word, their own
# confirmation already asked), and how long a rolled `.genchar` waits for `keep`.
DELETE_WORDS = ("delete", "del", "clear", "clr", "delete confirm")
DRAFT_SECONDS = 600


def _delete(character: characters.Character, caller: Caller) -> CommandReply:
    """Delete the caller's active character at once, kept for `.st undo`."""
    characters.character_delete(character)
    return CommandReply(
        caller.say(
            _("{who} deleted {name}. Changed your mind? .st undo brings it back within 5 minutes."),
            who=caller.name,
            name=character.name,
        ),
        private=False,
    )


def _undo(arguments: str, caller: Caller) -> CommandReply:
    """Bring back the character the caller deleted in the last few minutes (`.st undo
    [name] [replace]`): never in place of a newer one or over a name another holds
    without the caller saying so."""
    typed, replace = character_names.without_replace(arguments)
    try:
        restored = characters.sheet_restore(caller.room_id, caller.member_id, name=typed, replace=replace)
    except characters.NothingToUndo as refused:
        return CommandReply(refused.message(caller.locale))
    except characters.SheetInTheWay as standing:
        again = " ".join([".st undo", typed, "replace"] if typed else [".st undo", "replace"])
        return CommandReply(
            caller.say(
                _(
                    "You play {current} now: .st undo would put {name} in its place. "
                    "{again} brings {name} back instead, and .st undo then brings {current} back."
                ),
                current=standing.current,
                name=standing.name,
                again=again,
            )
        )
    except character_names.NameTaken as taken:
        return CommandReply(character_names.refusal(taken, caller.locale, lambda name: f".st undo {name}"))
    name = restored.character.name
    if restored.instead_of is None:
        text = caller.say(_("{who} brought {name} back."), who=caller.name, name=name)
    else:
        text = caller.say(
            _("{who} brought {name} back in place of {current}; .st undo brings {current} back."),
            who=caller.name,
            name=name,
            current=restored.instead_of,
        )
    return CommandReply(text, private=False)


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
        typed, replace = character_names.without_replace(rest)
        made = _make_character(
            caller,
            lambda name: f".genchar keep {name}",
            replace=replace,
            system=draft["system"],
            name=character_names.chosen_name(typed, caller.name),
            rolled=characters.Rolled(**draft),
        )
        if not isinstance(made, characters.Made):
            return CommandReply(made)  # the draft waits for another name
        cache.delete(draft_key)
        return _made(caller, made)
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
    typed, replace = character_names.without_replace(rest if system else head)
    word = f"{first} " if system else ""
    made = _make_character(
        caller,
        lambda name: f".genchar {word}{name} | …",
        replace=replace,
        system=system or TableSettings.of(caller.room_id).system,
        name=character_names.chosen_name(typed, caller.name),
        background=description,
    )
    return _made(caller, made) if isinstance(made, characters.Made) else CommandReply(made)


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
    name = character_names.chosen_name(arguments, "")
    if not name:
        return CommandReply(caller.say(_("Give the new name: .nn <name>")))
    try:
        character_names.in_the_way(
            caller.room_id, caller.member_id, name, replace=False, besides=character.pk
        )
    except character_names.NameTaken as taken:
        return CommandReply(
            character_names.refusal(taken, caller.locale, lambda typed: f".nn {typed}", may_replace=False)
        )
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


@command("en", help=_("skill growth: .en 侦查, .en Spot Hidden"))
def grow(arguments: str, caller: Caller) -> CommandReply:
    actor = game.Actor.member(caller.room_id, caller.member_id, caller.name)
    if actor.character is None:
        return no_character(caller)
    if not arguments.strip():
        return CommandReply(caller.say(_("Name the skill to grow: .en Spot Hidden")))
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
