"""The command router: which inputs are dot commands, and what they answer.

Commands register themselves with `@command(...)` (see `keeper/dice_commands.py`).
The router knows prefixes (`.`, `。`, `/`), aliases in both languages, the
4000-character argument cap, keeper gates and unknown-command suggestions; a handler
gets the parsed arguments and the caller, and returns a `CommandReply`.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from base import frames
from base.i18n import _, say
from keeper import characters
from keeper.dice import DiceError, roll_expression

PREFIXES = (".", "。", "/")
MAX_ARGUMENT_CHARS = 4000
# A command is a prefix followed at once by a word; "... I wait" is ordinary play.
_COMMAND = re.compile(r"^[.。/](?P<word>[^\W\d_][\w]*)", re.UNICODE)


@dataclass(frozen=True)
class Caller:
    """Who typed the command, as the join stamped them."""

    room_id: int
    member_id: str
    name: str
    is_keeper: bool
    locale: str
    # The name they roll under (their active character's), when the turn read it with
    # the key; "" to read it when a command needs it.
    table_name: str = ""

    def say(self, text: str, /, **values: object) -> str:
        """`text` (marked with `_`) in the caller's language, with `values` filled in."""
        return say(self.locale, text, **values)


class Refused:
    """Why a command was refused, for a carrier whose protocol says a refusal its own
    way (SideQuest's `ERROR` for a `/gm` command a player may not use): codes, never
    texts, so no carrier reads the game's words to learn what happened."""

    KEEPER_ONLY = "keeper_only"


@dataclass
class DiceEvent:
    """A dice frame a command produced: broadcast, recorded, replayed in place."""

    frame: dict
    keepers_only: bool = False  # and the caller


@dataclass
class CommandReply:
    """What a command answers: a text, whether only the caller sees it, and its dice."""

    text: str
    private: bool = True
    events: list[DiceEvent] = field(default_factory=list)
    # What the caller's own echo of the command shows instead of the line typed (a
    # secret argument, masked).
    echo: str | None = None
    # Frames for everyone that are not history (`audio_control`): sent live, never replayed.
    live: list[dict] = field(default_factory=list)
    # Media items (ids) stored by the command, announced to the room like an upload.
    media: list[int] = field(default_factory=list)
    # Slow work the command started; its answer follows this reply.
    follow_up: FollowUp | None = None
    # The room's panels changed (`.panels enable`): every member gets its own `ui_manifest`.
    panels_changed: bool = False
    # The keeper chose the room's language (`.language`): every connection of the room
    # writes its member's server lines in it from now on.
    room_language: str = ""
    # The name the command rolled under, the caller's at the table, when it read it (a
    # roll changes no sheet, so the turn's chronicle entry needs no second read).
    roller: str = ""
    # Why the command was refused (a `Refused` code); empty when it was not.
    refused: str = ""
    # The room's model changed (`.model set`, `.model key`, `.model reset`, a sign-in
    # or sign-out): every keeper's client is shown the room's model again.
    model_changed: bool = False


@dataclass(frozen=True)
class FollowUp:
    """Slow work a command starts once its first reply is out: `fetch` asks another
    service, off the database thread (a model drafting a module, an endpoint drawing an
    image); `finish` gets what came back, or the exception `fetch` raised, stores what
    it should and answers like a command."""

    # A blocking function (run in a worker thread), or a coroutine function (awaited:
    # work that mostly waits, such as a sign-in's poll).
    fetch: Callable[[], object]
    finish: Callable[[object], CommandReply]
    # Work that may take minutes (a sign-in waiting for its approval): it runs beside
    # the caller's next inputs instead of before them.
    background: bool = False


@dataclass(frozen=True)
class Command:
    name: str
    aliases: tuple[str, ...]
    handler: Callable[[str, Caller], CommandReply]
    help: str
    keeper_only: bool = False
    # Answered without writing anything `state` shows (the tables the room's state stamp
    # counts, the story among them): the turn can take the story and the stamp from its
    # first read, for its chronicle entry and its closing `state`.
    keeps_state: bool = False


REGISTRY: dict[str, Command] = {}
_ALIASES: dict[str, Command] = {}


def command(
    *aliases: str, help: str, keeper_only: bool = False, keeps_state: bool = False
) -> Callable[[Callable[[str, Caller], CommandReply]], Callable[[str, Caller], CommandReply]]:
    """Register a command under its aliases (the first is its name). A `keeper_only`
    command is refused to players by the router and listed in the keeper's help; one
    that `keeps_state` is answered without writing anything the room's `state` shows."""

    def register(handler: Callable[[str, Caller], CommandReply]) -> Callable[[str, Caller], CommandReply]:
        entry = Command(aliases[0], aliases, handler, help, keeper_only, keeps_state)
        REGISTRY[entry.name] = entry
        for alias in aliases:
            _ALIASES[alias.lower()] = entry
        return handler

    return register


def trailing_number(text: str) -> tuple[str, str] | None:
    """`text` split before the digits it ends with (`("Spot Hidden ", "60")`), or None
    when it ends with none. A command line reads its numbers this way rather than with a
    pattern such as `(.*?)\\s*(\\d+)$`, whose time grows with the square of a long
    line of spaces or digits: one line costs a fixed number of passes."""
    start = len(text)
    while start and text[start - 1].isdecimal():
        start -= 1
    if start == len(text):
        return None
    return text[:start], text[start:]


@functools.lru_cache(maxsize=64)  # a turn asks it of its line four times
def command_word(text: str) -> str | None:
    """The command word if `text` is a dot command line, else None."""
    match = _COMMAND.match(text.strip())
    return match.group("word").lower() if match else None


def keeps_state(text: str) -> bool:
    """Whether answering the line writes nothing the room's `state` shows (its story
    among it): a line of play, inline rolls, or a command registered as keeping it."""
    if command_word(text) is None:
        return True
    entry = _split(text)[0]
    return entry is not None and entry.keeps_state


def _split(text: str) -> tuple[Command | None, str, str]:
    """(command, word as typed, arguments). Aliases may be glued to their argument
    (`.ra侦查`, `.r1d20`): the longest alias that starts the word wins."""
    stripped = text.strip()[1:]
    word = command_word(text) or ""
    if word in _ALIASES:
        return _ALIASES[word], word, stripped[len(word) :].strip()
    for length in range(len(word) - 1, 0, -1):
        prefix, rest = word[:length], stripped[length:]
        if prefix in _ALIASES and _glued_argument(rest):
            return _ALIASES[prefix], prefix, rest.strip()
    return None, word, stripped[len(word) :].strip()


def _glued_argument(rest: str) -> bool:
    """Whether `rest` reads as an argument glued to a command (`1d20`, `侦查`, `d6`)
    rather than as the rest of a mistyped word (`.rool` is not `.r ool`)."""
    first = rest[:1]
    return not (first.isascii() and first.isalpha()) or bool(re.match(r"d(\d|%|f)", rest, re.IGNORECASE))


def dispatch(text: str, caller: Caller) -> CommandReply | None:
    """Answer a command line, or return None when `text` is ordinary play."""
    if command_word(text) is None:
        return inline_rolls(text, caller) if _INLINE.search(text) else None
    entry, word, arguments = _split(text)
    if entry is None:
        return _unknown(word, caller)
    if entry.keeper_only and not caller.is_keeper:
        return keeper_refusal(caller)
    if len(arguments) > MAX_ARGUMENT_CHARS:
        return CommandReply(
            caller.say(
                _("Those arguments are too long (at most {limit} characters)."),
                limit=MAX_ARGUMENT_CHARS,
            )
        )
    return entry.handler(arguments, caller)


_INLINE = re.compile(r"\[\[(.{1,200}?)\]\]")


def inline_rolls(text: str, caller: Caller) -> CommandReply:
    """Ordinary text with `[[expr]]` rolls: each rolled, the line told with its results."""
    events: list[DiceEvent] = []
    who = characters.table_name(caller.room_id, caller.member_id, caller.name)

    def substitute(match: re.Match) -> str:
        try:
            (result,) = roll_expression(match.group(1))
        except DiceError as refused:
            return f"[[{match.group(1)}: {refused.message(caller.locale)}]]"
        events.append(DiceEvent(frames.dice(who, "roll", result.expr, result.rolls, result.total)))
        return f"{match.group(1)}={result.total}"

    told = _INLINE.sub(substitute, text)
    return CommandReply(f"{who}: {told}", private=False, events=events)


def keeper_refusal(caller: Caller) -> CommandReply:
    """The private answer a player gets for a keeper's command."""
    return CommandReply(caller.say(_("Only the keeper can do that.")), refused=Refused.KEEPER_ONLY)


def _unknown(word: str, caller: Caller) -> CommandReply:
    reply = caller.say(_("Unknown command .{word}."), word=word)
    close = difflib.get_close_matches(word, _ALIASES.keys(), n=3, cutoff=0.5)
    if close:
        names = ", ".join("." + name for name in close)
        reply += caller.say(_(" Did you mean: {names}?"), names=names)
    reply += caller.say(_(" Type .help for the list."))
    return CommandReply(reply)


# `.help` groups the commands by topic: the module each is written in says which.
_TOPICS = (
    (_("Dice and checks:"), ("keeper.dice_commands",)),
    (_("Characters:"), ("keeper.sheet_commands", "keeper.image_commands", "keeper.inventory_commands")),
    (
        _("Story, lore and modules:"),
        ("keeper.lore_commands", "keeper.module_commands", "keeper.import_commands"),
    ),
    (_("The table:"), ("keeper.scene_commands", "keeper.table_commands", "keeper.variable_commands")),
    (
        _("Packs, pictures and sound:"),
        ("keeper.pack_commands", "keeper.panel_commands", "keeper.audio_commands"),
    ),
    (_("The Keeper:"), ("keeper.kp.keeper_commands",)),
)


def _by_topic(entries: list[Command], caller: Caller) -> list[str]:
    lines: list[str] = []
    placed: set[str] = set()
    for title, modules in (*_TOPICS, (_("More:"), None)):
        group = [
            e
            for e in entries
            if e.name not in placed and (modules is None or e.handler.__module__ in modules)
        ]
        if not group:
            continue
        lines.append(caller.say(title))
        for entry in group:
            placed.add(entry.name)
            lines.append(f"  .{' / .'.join(entry.aliases)}  {caller.say(entry.help)}")
    return lines


def help_text(caller: Caller) -> str:
    """Two layers, each grouped by topic: every player's commands; a keeper also sees
    the keeper section."""
    lines = [caller.say(_("Commands:"))]
    lines += _by_topic([e for e in REGISTRY.values() if not e.keeper_only], caller)
    if caller.is_keeper:
        lines.append("")
        lines.append(caller.say(_("Keeper commands:")))
        lines += _by_topic([e for e in REGISTRY.values() if e.keeper_only], caller)
    return "\n".join(lines)
