"""Dice commands: .r .rh .ra .rav .rule .help .jrrp (docs/rules.md, "The command dialect").

A check takes its value inline (`.ra 侦查60`) or from the caller's active sheet.
"""

from __future__ import annotations

import datetime
import hashlib
import re

from base.i18n import _
from keeper import characters, game
from keeper.commands import Caller, CommandReply, command, help_text, keeper_refusal, trailing_number
from keeper.dice import DiceError
from keeper.models import TableSettings
from keeper.rules import dnd5e
from keeper.rules.packs import Pack

# From the start of the spaces only: tried at each space of a long run, the pattern's
# time grew with the square of the run.
_ADVANTAGE = re.compile(r"(?<!\s)\s+(adv|advantage|优势|dis|disadvantage|劣势)$", re.IGNORECASE)
_BONUS = re.compile(r"^(?P<kind>[bp])(?P<count>\d?)(?=$|[^a-z])", re.IGNORECASE)
_BONUS_WORD = re.compile(r"^[bp]\d?$", re.IGNORECASE)
_REPEAT = re.compile(r"^(\d+)#\s*(.*)$", re.S)


def _typed_roll(arguments: str, caller: Caller, *, hidden: bool) -> CommandReply:
    expression = arguments.strip()
    edge = ""
    marker = _ADVANTAGE.search(expression)
    if marker:
        expression = expression[: marker.start()].strip()
        edge = "advantage" if marker.group(1).lower() in ("adv", "advantage", "优势") else "disadvantage"
    # A written expression needs only the roller's name; the default die is the sheet's.
    if expression and caller.table_name:
        actor = game.Actor(caller.room_id, caller.table_name)
    else:
        named = game.Actor.named if expression else game.Actor.member
        actor = named(caller.room_id, caller.member_id, caller.name)
    try:
        rolled = game.roll(actor, expression, hidden=hidden, edge=edge)
    except (DiceError, game.GameError) as refused:
        return CommandReply(refused.message(caller.locale))
    totals = ", ".join(f"{r.breakdown}" for r in rolled.results)
    if hidden:
        return CommandReply(
            caller.say(_("You rolled in secret: {totals}"), totals=totals),
            events=rolled.events,
            roller=actor.name,
        )
    return CommandReply(
        caller.say(_("{name} rolls {totals}"), name=actor.name, totals=totals),
        private=False,
        events=rolled.events,
        roller=actor.name,
    )


def _actor(caller: Caller) -> game.Actor:
    """The caller as an actor: their active sheet, and the name the table knows them by
    (their character's when they play one)."""
    return game.Actor.member(caller.room_id, caller.member_id, caller.name)


@command("r", "rd", "roll", help=_("roll dice: .r 1d20+3, .r 3#1d6, .r 1d20 adv"), keeps_state=True)
def roll(arguments: str, caller: Caller) -> CommandReply:
    """A public roll."""
    return _typed_roll(arguments, caller, hidden=False)


@command("rh", help=_("roll in secret: only you and the keeper see it"), keeps_state=True)
def hidden_roll(arguments: str, caller: Caller) -> CommandReply:
    """A roll whose result reaches the roller and the keepers only."""
    return _typed_roll(arguments, caller, hidden=True)


def _parse_check(arguments: str, words: dict[str, str]) -> tuple[int, int, str, str, int | None]:
    """(bonus, penalty, difficulty, skill name, value) from `[b/p] [difficulty] name[value]`;
    `words` are the pack's difficulty words. The name may be several words ("Spot Hidden");
    a bonus or difficulty word after it, as its own word, is a modifier too ("spot hidden
    hard 60"), never part of the name."""
    bonus = penalty = 0
    difficulty = "regular"
    rest = arguments.strip()
    changed = True
    while changed and rest:
        changed = False
        extra = _BONUS.match(rest)
        if extra:
            count = int(extra.group("count") or 1)
            if extra.group("kind").lower() == "b":
                bonus += count
            else:
                penalty += count
            rest = rest[extra.end() :].strip()
            changed = True
        for word, level in words.items():
            after = rest[len(word) : len(word) + 1]
            # "hard spot" and "困难侦查" name a difficulty; "hardware" does not.
            if rest.lower().startswith(word) and after and not (after.isascii() and after.isalpha()):
                difficulty = level
                rest = rest[len(word) :].strip()
                changed = True
                break
    value = None
    for _side in range(2):  # modifiers after the value, then between the name and it
        *name_words, last = rest.split() or [""]
        while name_words and (last.lower() in words or _BONUS_WORD.match(last)):
            if last.lower() in words:
                difficulty = words[last.lower()]
            else:
                count = int(last[1:] or 1)
                bonus, penalty = (bonus + count, penalty) if last[0] in "bB" else (bonus, penalty + count)
            *name_words, last = name_words
        rest = " ".join([*name_words, last])
        numbered = trailing_number(rest)
        if numbered and value is None:
            rest, value = numbered[0].strip(), int(numbered[1])
    return bonus, penalty, difficulty, rest, value


def _check_text(caller: Caller, actor: game.Actor, checked: game.Checked, pack: Pack) -> str:
    """The line the table reads for a check: the roller as the dice name them, the skill
    by its name in the caller's language."""
    label = checked.outcome.as_wire(caller.locale)["label"] if checked.outcome else ""
    skill = pack.sheet.skill_label(checked.skill, caller.locale) if checked.skill else ""
    if checked.scale == "d100":
        return caller.say(
            _("{who}: {skill} {roll}/{target} {label}"),
            who=actor.name,
            skill=skill or "check",
            roll=checked.total,
            target=checked.target,
            label=label,
        )
    return caller.say(
        _("{who}: {skill} {total}{vs}{verdict}"),
        who=actor.name,
        skill=skill,
        total=checked.total,
        vs=f" vs DC {checked.target}" if checked.target is not None else "",
        verdict=f" {label}" if label else "",
    )


_D20_CHECK = re.compile(r"^(?P<name>[^\d+\-]+?)\s*(?P<mod>[+-]\d+)?(?:\s+(?P<dc>\d+))?$", re.IGNORECASE)
_PROFICIENT = {"prof", "proficient", "熟练"}


def _d20_check(arguments: str, caller: Caller, actor: game.Actor, pack: Pack) -> CommandReply:
    """`<skill>[+mod] [DC] [adv|dis] [prof]`: d20 + modifier against an optional DC."""
    words = arguments.split()
    advantage = sum(1 for w in words if w.lower() in dnd5e.ADVANTAGE_WORDS)
    disadvantage = sum(1 for w in words if w.lower() in dnd5e.DISADVANTAGE_WORDS)
    proficient = any(w.lower() in _PROFICIENT for w in words)
    flags = dnd5e.ADVANTAGE_WORDS | dnd5e.DISADVANTAGE_WORDS | _PROFICIENT
    match = _D20_CHECK.match(" ".join(w for w in words if w.lower() not in flags).strip())
    if not match:
        return CommandReply(caller.say(_("Use .ra <skill> [DC] [adv|dis] [prof].")))
    checked = game.skill_check(
        actor,
        match.group("name").strip(),
        value=int(match.group("mod")) if match.group("mod") else None,
        advantage=advantage,
        disadvantage=disadvantage,
        proficient=proficient,
        dc=int(match.group("dc")) if match.group("dc") else None,
    )
    return CommandReply(_check_text(caller, actor, checked, pack), private=False, events=checked.events)


@command("ra", "rc", "check", help=_("skill check: .ra Spot Hidden, .ra b hard 侦查60"), keeps_state=True)
def check(arguments: str, caller: Caller) -> CommandReply:
    """A graded check the room's rules' way: under a skill (with `3#` repeats, bonus and
    penalty dice, difficulty words), or d20 + modifier against a DC."""
    actor = _actor(caller)
    try:
        pack = actor.pack()
        if pack.check.roll == "d20":
            return _d20_check(arguments, caller, actor, pack)
        times = 1
        repeat = _REPEAT.match(arguments.strip())
        if repeat:
            times, arguments = int(repeat.group(1)), repeat.group(2)
            if not 1 <= times <= 20:
                return CommandReply(caller.say(_("Repeat 1 to 20 times.")))
        bonus, penalty, difficulty, name, value = _parse_check(arguments, pack.difficulty_words())
        checks = [
            game.skill_check(actor, name, value=value, difficulty=difficulty, bonus=bonus, penalty=penalty)
            for _repeat in range(times)
        ]
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        "\n".join(_check_text(caller, actor, c, pack) for c in checks),
        private=False,
        events=[event for c in checks for event in c.events],
    )


def _pieces(text: str, pack: Pack) -> list[str] | None:
    """`.rav`'s arguments as its two sides' texts. Each side is a name (maybe several
    words, maybe a difficulty word first) and a value, glued or not ("斗殴50 闪避40",
    "hard Spot Hidden 60 Dodge 40"); without values, the split where both sides name
    something the pack knows ("Spot Hidden Dodge")."""
    tokens = text.split()
    for index, token in enumerate(tokens[:-1]):
        if token[-1].isdigit():
            return [" ".join(tokens[: index + 1]), " ".join(tokens[index + 1 :])]
    if len(tokens) == 2:
        return tokens
    words = pack.difficulty_words()
    for index in range(1, len(tokens)):
        halves = [" ".join(tokens[:index]), " ".join(tokens[index:])]
        if all(pack.sheet.canonical(_parse_check(half, words)[3]) for half in halves):
            return halves
    return None


def _sides(arguments: str, actor: game.Actor, pack: Pack) -> list[game.Side] | None:
    """Both sides of an opposed check; a side without a value reads the actor's sheet.
    None when there are not two sides with values."""
    pieces = _pieces(arguments, pack)
    if pieces is None:
        return None
    words = pack.difficulty_words()
    sides = []
    for piece in pieces:
        _b, _p, difficulty, name, value = _parse_check(piece, words)
        if value is None and actor.character is not None:
            found = characters.sheet_value(actor.character, name)
            if found is None:
                raise game.UnknownSkill(actor.pack(), name)
            name, value = found
        elif value is not None:
            name = game.frame_name(actor, name)
        if value is None or not name:
            return None
        sides.append(game.Side(name, value, difficulty))
    return sides


@command("rav", "rcv", help=_("opposed check: .rav 斗殴50 闪避40"), keeps_state=True)
def opposed(arguments: str, caller: Caller) -> CommandReply:
    """Both sides roll; the higher tier wins; equal tiers tie."""
    actor = _actor(caller)
    try:
        pack = actor.pack()
        sides = _sides(arguments, actor, pack)
        if sides is None:
            return CommandReply(caller.say(_("Use .rav <left><value> <right><value>.")))
        left, right = sides
        result = game.opposed_check(actor, left, right)
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(opposed_text(caller, left, right, result, pack), private=False, events=result.events)


def opposed_text(caller: Caller, left: game.Side, right: game.Side, result: game.Opposed, pack: Pack) -> str:
    """The line the table reads for an opposed check: each side is the skill it rolled,
    named in the caller's language."""
    names = {
        "left": pack.sheet.skill_label(left.name, caller.locale),
        "right": pack.sheet.skill_label(right.name, caller.locale),
    }
    verdict = (
        caller.say(_("a tie"))
        if result.winner == "tie"
        else caller.say(_("{n} wins"), n=names[result.winner])
    )
    return caller.say(
        _("{a} {ra} vs {b} {rb}: {verdict}"),
        a=names["left"],
        ra=result.rolls[0],
        b=names["right"],
        rb=result.rolls[1],
        verdict=verdict,
    )


@command("rule", help=_("house rule: .rule, .rule 2 (keeper), .rule dg"))
def house_rule(arguments: str, caller: Caller) -> CommandReply:
    """Show the room's house rule (its rule pack lists the choices); a keeper may change it."""
    settings = TableSettings.of(caller.room_id)
    try:
        rules = game.Actor(caller.room_id, caller.name).pack().check.house_rules
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    choice = arguments.strip().lower()
    if choice in ("", "list", "show"):
        return CommandReply(
            caller.say(
                _("House rule {rule} is in force. Rules: {all}."),
                rule=settings.house_rule,
                all=", ".join(rules) or "-",
            )
        )
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if choice == "off":
        choice = "0"
    if choice not in rules:
        return CommandReply(caller.say(_("No such house rule: {c}."), c=choice))
    settings.house_rule = choice
    settings.save(update_fields=["house_rule"])
    return CommandReply(caller.say(_("House rule {rule} is now in force."), rule=choice), private=False)


@command("help", "h", help=_("this list"))
def show_help(arguments: str, caller: Caller) -> CommandReply:
    """The commands this caller may use (keepers also see theirs)."""
    return CommandReply(help_text(caller))


@command("jrrp", help=_("today's luck (no game effect)"))
def luck_of_the_day(arguments: str, caller: Caller) -> CommandReply:
    """A number from 1 to 100 that stays the same for a member all day."""
    today = datetime.date.today().isoformat()
    number = int(hashlib.sha256(f"{caller.member_id}:{today}".encode()).hexdigest(), 16) % 100 + 1
    return CommandReply(
        caller.say(_("{name}'s luck today: {n}"), name=caller.name, n=number),
        private=False,
    )
