"""Dice commands: .r .rh .ra .rav .rule .help .jrrp (RULES.md, "The command dialect").

A check takes its value inline (`.ra 侦查60`) or from the caller's active sheet.
"""

from __future__ import annotations

import datetime
import hashlib
import re

from keeper import characters
from keeper.commands import Caller, CommandReply, DiceEvent, command, help_text, keeper_refusal
from keeper.dice import DiceError, roll_expression
from keeper.frames import outcome_wire
from keeper.models import TableSettings
from keeper.rules import coc7, dnd5e
from keeper.rules.packs import catalog
from loreweaver import frames

_ADVANTAGE = re.compile(r"\s+(adv|advantage|优势|dis|disadvantage|劣势)$", re.IGNORECASE)
_BONUS = re.compile(r"^(?P<kind>[bp])(?P<count>\d?)(?=$|[^a-z])", re.IGNORECASE)
_SKILL_VALUE = re.compile(r"^(?P<name>.*?)\s*(?P<value>\d+)$")
_REPEAT = re.compile(r"^(\d+)#\s*(.*)$", re.S)


def _typed_roll(arguments: str, caller: Caller, *, hidden: bool) -> CommandReply:
    settings = TableSettings.of(caller.room_id)
    expression = arguments.strip()
    advantage = _ADVANTAGE.search(expression)
    if advantage:
        expression = expression[: advantage.start()].strip() or "1d20"
        keep = "kh1" if advantage.group(1).lower() in ("adv", "advantage", "优势") else "kl1"
        expression = re.sub(r"(?<!\d)1?d20(?![0-9kKpP])", f"2d20{keep}", expression, count=1)
    if not expression:
        pack = catalog().packs.get(settings.system)
        expression = pack.default_die if pack else "1d100"
    try:
        results = roll_expression(expression)
    except DiceError as refused:
        return CommandReply(refused.message(caller.locale))
    events = [
        DiceEvent(
            frames.dice(
                caller.name, "roll", result.expr, result.rolls, result.total, detail=result.detail or None
            ),
            keepers_only=hidden,
        )
        for result in results
    ]
    totals = ", ".join(f"{r.breakdown}" for r in results)
    if hidden:
        return CommandReply(
            caller.say("You rolled in secret: {totals}", "你暗骰了：{totals}", totals=totals), events=events
        )
    return CommandReply(
        caller.say("{name} rolls {totals}", "{name} 掷骰 {totals}", name=caller.name, totals=totals),
        private=False,
        events=events,
    )


@command("r", "rd", "roll", help_en="roll dice: .r 1d20+3, .r 3#1d6, .r 1d20 adv", help_zh="掷骰：.r 1d20+3")
def roll(arguments: str, caller: Caller) -> CommandReply:
    """A public roll."""
    return _typed_roll(arguments, caller, hidden=False)


@command("rh", help_en="roll in secret: only you and the keeper see it", help_zh="暗骰：只有你和守秘人可见")
def hidden_roll(arguments: str, caller: Caller) -> CommandReply:
    """A roll whose result reaches the roller and the keepers only."""
    return _typed_roll(arguments, caller, hidden=True)


def _parse_check(arguments: str, words: dict[str, str]) -> tuple[int, int, str, str, int | None]:
    """(bonus, penalty, difficulty, skill name, value) from `[b/p] [difficulty] name[value]`;
    `words` are the pack's difficulty words."""
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
    match = _SKILL_VALUE.match(rest)
    if match:
        return bonus, penalty, difficulty, match.group("name").strip(), int(match.group("value"))
    return bonus, penalty, difficulty, rest, None


def _check_once(arguments: str, caller: Caller, rule: str) -> tuple[str, DiceEvent] | str:
    bonus, penalty, difficulty, name, value = _parse_check(
        arguments, catalog().packs["coc7"].difficulty_words()
    )
    if value is None:
        character = characters.active_character(caller.room_id, caller.member_id)
        found = characters.sheet_value(character, name) if character and name else None
        if found is None:
            return caller.say(
                "Give the value to roll against (.ra 侦查60), or make a character with .coc.",
                "请给出检定数值（.ra 侦查60），或先用 .coc 创建角色。",
            )
        name, value = found
    if value > 1000:
        return caller.say("That value is too large.", "数值过大。")
    rolled = coc7.roll_d100(bonus, penalty)
    outcome = coc7.grade(rolled.value, value, difficulty, rule)
    expr = (
        "1d100"
        + (f" b{rolled.bonus}" if rolled.bonus else "")
        + (f" p{rolled.penalty}" if rolled.penalty else "")
    )
    detail: dict = {"modifier": 0}
    if rolled.bonus or rolled.penalty:
        detail.update(bonus=rolled.bonus, penalty=rolled.penalty, tens=rolled.tens, units=rolled.units)
    frame = frames.dice(
        caller.name,
        "check",
        expr,
        [rolled.value],
        rolled.value,
        target=value,
        effective_target=coc7.target_for(value, difficulty),
        outcome=outcome_wire(outcome),
        detail=detail,
        skill=name or None,
    )
    label = outcome.as_wire(caller.locale)["label"]
    text = caller.say(
        "{who}: {skill} {roll}/{target} {label}",
        "{who}：{skill} {roll}/{target} {label}",
        who=caller.name,
        skill=name or "check",
        roll=rolled.value,
        target=coc7.target_for(value, difficulty),
        label=label,
    )
    return text, DiceEvent(frame)


_DND_CHECK = re.compile(r"^(?P<name>[^\d+\-]+?)\s*(?P<mod>[+-]\d+)?(?:\s+(?P<dc>\d+))?$", re.IGNORECASE)


def _dnd_check(arguments: str, caller: Caller) -> CommandReply:
    """D&D 5e: d20 + modifier against an optional DC, with adv/dis (cancelling) and prof."""
    words = arguments.split()
    advantage = sum(1 for w in words if w.lower() in dnd5e.ADVANTAGE_WORDS)
    disadvantage = sum(1 for w in words if w.lower() in dnd5e.DISADVANTAGE_WORDS)
    proficient = any(w.lower() in ("prof", "proficient", "熟练") for w in words)
    rest = " ".join(
        w
        for w in words
        if w.lower() not in dnd5e.ADVANTAGE_WORDS | dnd5e.DISADVANTAGE_WORDS | {"prof", "proficient", "熟练"}
    )
    match = _DND_CHECK.match(rest.strip())
    if not match:
        return CommandReply(
            caller.say("Use .ra <skill> [DC] [adv|dis] [prof].", "用法：.ra <技能> [DC] [优势|劣势] [熟练]")
        )
    name, modifier = match.group("name").strip(), match.group("mod")
    if modifier is None:
        character = characters.active_character(caller.room_id, caller.member_id)
        found = characters.sheet_value(character, name) if character else None
        if found is None:
            return CommandReply(
                caller.say(
                    "Give the modifier (.ra athletics+3 15) or make a character with .dnd.",
                    "请给出调整值（.ra 运动+3 15），或先用 .dnd 创建角色。",
                )
            )
        key, value = found
        pack = characters.pack_of(character)
        name, modifier_value = key, dnd5e.modifier(value) if key in pack.sheet.attributes else value
    else:
        modifier_value = int(modifier)
    if proficient:
        modifier_value += dnd5e.PROFICIENCY_BONUS
    dc = int(match.group("dc")) if match.group("dc") else None
    d20 = dnd5e.roll_d20(advantage, disadvantage)
    total = d20.kept + modifier_value
    outcome = dnd5e.grade(d20.kept, total, dc)
    expr = {"advantage": "2d20kh1", "disadvantage": "2d20kl1"}.get(d20.mode, "1d20") + (
        f"{modifier_value:+d}" if modifier_value else ""
    )
    detail: dict = {"modifier": modifier_value}
    if d20.mode != "normal":
        detail[d20.mode] = True
    if proficient:
        detail["proficiency"] = dnd5e.PROFICIENCY_BONUS
    frame = frames.dice(
        caller.name,
        "check",
        expr,
        d20.faces,
        total,
        target=dc,
        outcome=outcome_wire(outcome) if outcome else None,
        detail=detail,
        skill=name,
    )
    verdict = f" {outcome.as_wire(caller.locale)['label']}" if outcome else ""
    text = caller.say(
        "{who}: {skill} {total}{vs}{verdict}",
        "{who}：{skill} {total}{vs}{verdict}",
        who=caller.name,
        skill=name,
        total=total,
        vs=f" vs DC {dc}" if dc is not None else "",
        verdict=verdict,
    )
    return CommandReply(text, private=False, events=[DiceEvent(frame)])


@command("ra", "rc", "check", help_en="skill check: .ra b hard 侦查60", help_zh="技能检定：.ra 困难 侦查60")
def check(arguments: str, caller: Caller) -> CommandReply:
    """A graded check: the CoC ladder under the room's house rule, or d20 vs DC in D&D rooms."""
    settings = TableSettings.of(caller.room_id)
    character = characters.active_character(caller.room_id, caller.member_id)
    if (character.system if character else settings.system) == "dnd5e":
        return _dnd_check(arguments, caller)
    times = 1
    repeat = _REPEAT.match(arguments.strip())
    if repeat:
        times, arguments = int(repeat.group(1)), repeat.group(2)
        if not 1 <= times <= 20:
            return CommandReply(caller.say("Repeat 1 to 20 times.", "重复次数须为 1 到 20。"))
    lines, events = [], []
    for _ in range(times):
        result = _check_once(arguments, caller, settings.house_rule or "0")
        if isinstance(result, str):
            return CommandReply(result)
        lines.append(result[0])
        events.append(result[1])
    return CommandReply("\n".join(lines), private=False, events=events)


@command("rav", "rcv", help_en="opposed check: .rav 斗殴50 闪避40", help_zh="对抗检定：.rav 斗殴50 闪避40")
def opposed(arguments: str, caller: Caller) -> CommandReply:
    """Both sides roll; the higher tier wins; equal tiers tie."""
    sides = arguments.split()
    words = catalog().packs["coc7"].difficulty_words()
    parsed = [_parse_check(side, words) for side in sides]
    if len(sides) != 2 or any(value is None for *_, value in parsed):
        return CommandReply(caller.say("Use .rav <left><value> <right><value>.", "用法：.rav 斗殴50 闪避40"))
    (
        (_b, _p, left_difficulty, left_name, left_value),
        (_b2, _p2, right_difficulty, right_name, right_value),
    ) = parsed
    return opposed_roll(
        caller,
        (left_name, left_value or 0),
        (right_name, right_value or 0),
        (left_difficulty, right_difficulty),
    )


def opposed_roll(
    caller: Caller,
    left: tuple[str, int],
    right: tuple[str, int],
    difficulties: tuple[str, str] = ("regular", "regular"),
) -> CommandReply:
    """Roll an opposed check between two (name, value) sides under the room's house rule."""
    rule = TableSettings.of(caller.room_id).house_rule or "0"
    results = []
    for (name, value), difficulty in zip((left, right), difficulties, strict=True):
        rolled = coc7.roll_d100()
        results.append((name, value, rolled.value, coc7.grade(rolled.value, value, difficulty, rule)))
    winner = coc7.opposed_winner(results[0][3], results[1][3])
    detail = {
        side: {"name": name, "total": total, "target": value, "outcome": outcome_wire(outcome)}
        for side, (name, value, total, outcome) in zip(("left", "right"), results, strict=True)
    }
    detail["winner"] = winner
    frame = frames.dice(
        caller.name, "opposed", "1d100 vs 1d100", [results[0][2], results[1][2]], results[0][2], detail=detail
    )
    names = {"left": results[0][0], "right": results[1][0]}
    verdict = (
        caller.say("a tie", "平局") if winner == "tie" else caller.say("{n} wins", "{n} 胜", n=names[winner])
    )
    return CommandReply(
        caller.say(
            "{a} {ra} vs {b} {rb}: {verdict}",
            "{a} {ra} 对 {b} {rb}：{verdict}",
            a=results[0][0],
            ra=results[0][2],
            b=results[1][0],
            rb=results[1][2],
            verdict=verdict,
        ),
        private=False,
        events=[DiceEvent(frame)],
    )


@command("rule", help_en="house rule: .rule, .rule 2 (keeper), .rule dg", help_zh="房规：.rule 2（守秘人）")
def house_rule(arguments: str, caller: Caller) -> CommandReply:
    """Show the room's CoC house rule; a keeper may change it."""
    settings = TableSettings.of(caller.room_id)
    choice = arguments.strip().lower()
    if choice in ("", "list", "show"):
        return CommandReply(
            caller.say(
                "House rule {rule} is in force. Rules: {all}.",
                "当前房规 {rule}。可选：{all}。",
                rule=settings.house_rule,
                all=", ".join(coc7.HOUSE_RULES),
            )
        )
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if choice == "off":
        choice = "0"
    if choice not in coc7.HOUSE_RULES:
        return CommandReply(caller.say("No such house rule: {c}.", "没有这个房规：{c}。", c=choice))
    settings.house_rule = choice
    settings.save(update_fields=["house_rule"])
    return CommandReply(
        caller.say("House rule {rule} is now in force.", "房规已改为 {rule}。", rule=choice), private=False
    )


@command("help", "h", help_en="this list", help_zh="本列表")
def show_help(arguments: str, caller: Caller) -> CommandReply:
    """The commands this caller may use (keepers also see theirs)."""
    return CommandReply(help_text(caller))


@command("jrrp", help_en="today's luck (no game effect)", help_zh="今日人品（无规则效果）")
def luck_of_the_day(arguments: str, caller: Caller) -> CommandReply:
    """A number from 1 to 100 that stays the same for a member all day."""
    today = datetime.date.today().isoformat()
    number = int(hashlib.sha256(f"{caller.member_id}:{today}".encode()).hexdigest(), 16) % 100 + 1
    return CommandReply(
        caller.say("{name}'s luck today: {n}", "{name} 今日人品：{n}", name=caller.name, n=number),
        private=False,
    )
