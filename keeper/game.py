"""The game's one API: a roll, a skill check, a sanity check, an opposed check,
initiative, skill growth. Each takes typed arguments and returns what happened, with
the dice events the table sees.

Dot commands (`dice_commands`, `sheet_commands`, `turn_order`) parse what a player
typed and call these; the Keeper's tools (`kp/tools.py`) pass the model's arguments
straight in, so a typed roll and a tool roll cannot differ. What differs between rule
systems comes from the room's rule pack, never from a system's name: how a check is
rolled (`check.roll`: d100 under a value, or d20 plus a modifier against a DC), its
difficulty words and house rules, which subsystems it has (sanity, growth), how
initiative is rolled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db import transaction

from base import frames
from base.i18n import Refusal, _
from keeper import characters
from keeper.commands import DiceEvent
from keeper.dice import RollResult, roll_expression
from keeper.dice.advantage import roll_d20
from keeper.dice.percentile import roll_d100
from keeper.frames import outcome_wire
from keeper.models import Character, InitiativeEntry, TableSettings
from keeper.rules import coc7, dnd5e
from keeper.rules.outcome import Outcome
from keeper.rules.packs import Pack, catalog

# The highest skill or characteristic value a check accepts.
MAX_VALUE = 1000


class GameError(Refusal):
    """An action that cannot be played as asked; `message(locale)` says why."""


class UnknownSkill(characters.NameNotFound, GameError):
    """A skill the actor's sheet does not have."""

    def __init__(self, pack: Pack, name: str) -> None:
        super().__init__(pack, name, _("{name} is not on your sheet."))


@dataclass(frozen=True)
class Actor:
    """Who acts: the room, the name the table sees on the dice, and the sheet the
    action reads (None for someone without one, such as an NPC or the keeper). One
    roller has one name at the table: their character's when they play one."""

    room_id: int
    name: str
    character: Character | None = None

    @classmethod
    def member(cls, room_id: int, member_id: str, name: str) -> Actor:
        """A member, with their active character's sheet if they have one: then named
        as the character (on the dice, in the story, in `.report`), else as the member."""
        character = characters.active_character(room_id, member_id)
        return cls(room_id, character.name if character else name, character)

    @classmethod
    def named(cls, room_id: int, member_id: str, name: str) -> Actor:
        """A member by the name the table knows them by (their character's when they
        play one), without reading the sheet: all a roll of a written expression needs
        (one plain query where `member` builds the whole character)."""
        return cls(room_id, characters.table_name(room_id, member_id, name))

    def pack(self) -> Pack:
        """The rules this actor plays by: the character's system, else the room's."""
        system = self.character.system if self.character else TableSettings.of(self.room_id).system
        pack = catalog().packs.get(system)
        if pack is None:
            raise GameError(
                _("The rule system {system} is not installed on this server."),
                system=system,
            )
        return pack

    def house_rule(self) -> str:
        """The room's house rule (d100 systems)."""
        return TableSettings.of(self.room_id).house_rule or "0"


@dataclass
class Played:
    """What an action did at the table: its dice events (each keeper-only or not)."""

    events: list[DiceEvent] = field(default_factory=list)


# --- rolls ---------------------------------------------------------------------------------


@dataclass
class Rolled(Played):
    """A typed roll: each repetition's result."""

    results: list[RollResult] = field(default_factory=list)


def roll(actor: Actor, expression: str = "", *, hidden: bool = False, edge: str = "") -> Rolled:
    """Roll `expression` (the pack's default die when empty). `edge` "advantage" or
    "disadvantage" turns its first d20 into two, keeping the higher or lower. A hidden
    roll reaches the roller and the keepers only."""
    expression = expression.strip()
    if edge:
        keep = "kh1" if edge == "advantage" else "kl1"
        expression = re.sub(r"(?<!\d)1?d20(?![0-9kKpP])", f"2d20{keep}", expression or "1d20", count=1)
    results = roll_expression(expression or actor.pack().default_die)
    events = [
        DiceEvent(
            frames.dice(actor.name, "roll", r.expr, r.rolls, r.total, detail=r.detail or None),
            keepers_only=hidden,
        )
        for r in results
    ]
    return Rolled(events=events, results=results)


# --- checks ----------------------------------------------------------------------------------


@dataclass
class Checked(Played):
    """A graded check. `value` is what was rolled against (a skill for d100, the modifier
    for d20); `target` the effective target (d100) or the DC (d20, maybe None); `total`
    the number the table sees; `outcome` None for a d20 roll without a DC."""

    skill: str = ""
    value: int = 0
    total: int = 0
    target: int | None = None
    outcome: Outcome | None = None
    # How it was rolled: "d100" (under a value) or "d20" (plus a modifier, against a DC).
    scale: str = "d100"


def _sheet_value(actor: Actor, skill: str) -> tuple[str, int] | None:
    return characters.sheet_value(actor.character, skill) if actor.character and skill else None


def skill_check(
    actor: Actor,
    skill: str,
    *,
    value: int | None = None,
    difficulty: str = "regular",
    bonus: int = 0,
    penalty: int = 0,
    advantage: int = 0,
    disadvantage: int = 0,
    proficient: bool = False,
    dc: int | None = None,
) -> Checked:
    """A check of `skill`, against `value` when given, else the actor's sheet. A d100
    pack rolls under the value (bonus/penalty dice, difficulty, the room's house rule);
    a d20 pack adds the modifier (and proficiency) and compares with `dc`."""
    if actor.pack().check.roll == "d20":
        return _d20_check(actor, skill, value, advantage, disadvantage, proficient, dc)
    return _d100_check(actor, skill, value, difficulty, bonus, penalty)


def frame_name(actor: Actor, skill: str) -> str:
    """A skill as its dice frame names it: as typed when it is an id or an alias of the
    pack (what clients look labels up by), else its id when the pack knows it by a
    display name ("Spot Hidden" is spot_hidden)."""
    sheet = actor.pack().sheet
    return skill if sheet.exact(skill) else sheet.canonical(skill) or skill


def _unknown(actor: Actor, skill: str, otherwise: GameError) -> GameError:
    """Why a check without a value cannot be rolled: a skill the actor's sheet lacks
    (with the closest names), else `otherwise` (no sheet, no skill named)."""
    if actor.character is not None and skill.strip():
        return UnknownSkill(actor.pack(), skill.strip())
    return otherwise


def _d100_check(
    actor: Actor, skill: str, value: int | None, difficulty: str, bonus: int, penalty: int
) -> Checked:
    if value is None:
        found = _sheet_value(actor, skill)
        if found is None:
            raise _unknown(
                actor,
                skill,
                GameError(_("Give the value to roll against (.ra 侦查60), or make a character with .coc.")),
            )
        skill, value = found
    else:
        skill = frame_name(actor, skill)
    if value > MAX_VALUE:
        raise GameError(_("That value is too large."))
    rolled = roll_d100(bonus, penalty)
    outcome = coc7.grade(rolled.value, value, difficulty, actor.house_rule())
    target = coc7.target_for(value, difficulty)
    expr = (
        "1d100"
        + (f" b{rolled.bonus}" if rolled.bonus else "")
        + (f" p{rolled.penalty}" if rolled.penalty else "")
    )
    detail: dict = {"modifier": 0}
    if rolled.bonus or rolled.penalty:
        detail.update(bonus=rolled.bonus, penalty=rolled.penalty, tens=rolled.tens, units=rolled.units)
    frame = frames.dice(
        actor.name,
        "check",
        expr,
        [rolled.value],
        rolled.value,
        target=value,
        effective_target=target,
        outcome=outcome_wire(outcome),
        detail=detail,
        skill=skill or None,
    )
    return Checked(
        events=[DiceEvent(frame)],
        skill=skill,
        value=value,
        total=rolled.value,
        target=target,
        outcome=outcome,
    )


def _d20_check(
    actor: Actor,
    skill: str,
    value: int | None,
    advantage: int,
    disadvantage: int,
    proficient: bool,
    dc: int | None,
) -> Checked:
    if value is None:
        found = _sheet_value(actor, skill)
        if found is None:
            raise _unknown(
                actor,
                skill,
                GameError(_("Give the modifier (.ra athletics+3 15) or make a character with .dnd.")),
            )
        skill, score = found
        assert actor.character is not None
        sheet = characters.pack_of(actor.character).sheet
        value = dnd5e.modifier(score) if skill in sheet.attributes else score
    else:
        skill = frame_name(actor, skill)
    if proficient:
        value += dnd5e.PROFICIENCY_BONUS
    d20 = roll_d20(advantage, disadvantage)
    total = d20.kept + value
    outcome = dnd5e.grade(d20.kept, total, dc)
    expr = {"advantage": "2d20kh1", "disadvantage": "2d20kl1"}.get(d20.mode, "1d20") + (
        f"{value:+d}" if value else ""
    )
    detail: dict = {"modifier": value}
    if d20.mode != "normal":
        detail[d20.mode] = True
    if proficient:
        detail["proficiency"] = dnd5e.PROFICIENCY_BONUS
    frame = frames.dice(
        actor.name,
        "check",
        expr,
        d20.faces,
        total,
        target=dc,
        outcome=outcome_wire(outcome) if outcome else None,
        detail=detail,
        skill=skill,
    )
    return Checked(
        events=[DiceEvent(frame)],
        skill=skill,
        value=value,
        total=total,
        target=dc,
        outcome=outcome,
        scale="d20",
    )


# --- sanity and growth -------------------------------------------------------------------------


def _needs_subsystem(actor: Actor, subsystem: str) -> Character:
    if actor.character is None:
        raise GameError(
            _("You have no active character here: make one with .coc or .dnd."),
        )
    if subsystem not in actor.pack().subsystems:
        raise GameError(
            _("{system} has no {what}."),
            system=actor.pack().name.en,
            what=subsystem,
        )
    return actor.character


@dataclass
class SanityChecked(Played):
    """A sanity check: the roll against the SAN it started from, and what was lost."""

    sanity: int = 0
    result: coc7.SanityResult | None = None


def sanity_check(
    actor: Actor, success_loss: str, failure_loss: str, *, bonus: int = 0, penalty: int = 0
) -> SanityChecked:
    """d100 against the character's SAN; lose `success_loss` or `failure_loss` (dice
    expressions); a fumble loses the most it can. The sheet keeps what is left."""
    character = _needs_subsystem(actor, "sanity")
    sanity = int(character.resources.get("san", 0))
    result = coc7.sanity_check(
        sanity=sanity,
        success_loss=success_loss,
        failure_loss=failure_loss,
        rule=actor.house_rule(),
        bonus=bonus,
        penalty=penalty,
    )
    character.resources["san"] = result.remaining
    character.save(update_fields=["resources"])
    frame = frames.dice(
        character.name,
        "subsystem",
        "1d100",
        [result.roll.value],
        result.roll.value,
        subsystem="sanity",
        target=sanity,
        outcome=outcome_wire(result.outcome),
        detail={"loss_expr": result.loss_expr, "loss": result.loss, "remaining": result.remaining},
    )
    return SanityChecked(events=[DiceEvent(frame)], sanity=sanity, result=result)


@dataclass
class Grown(Played):
    """A growth roll: the skill, the roll, and its value before and after."""

    skill: str = ""
    roll: int = 0
    before: int = 0
    after: int = 0


def growth(actor: Actor, skill: str) -> Grown:
    """Roll to improve a skill on the actor's sheet (the pack's growth rule)."""
    character = _needs_subsystem(actor, "growth")
    found = characters.sheet_value(character, skill)
    if found is None:
        raise UnknownSkill(actor.pack(), skill.strip())
    key, value = found
    rolled, gain, new = coc7.growth(value)
    if gain:
        characters.sheet_change(character, key, "=", new)
    return Grown(skill=key, roll=rolled, before=value, after=new)


# --- opposed checks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One side of an opposed check: who, what they roll, against which value."""

    name: str
    value: int
    difficulty: str = "regular"


@dataclass
class Opposed(Played):
    """Both sides' rolls and outcomes, and who won: "left", "right" or "tie"."""

    rolls: tuple[int, int] = (0, 0)
    winner: str = "tie"


def opposed_check(actor: Actor, left: Side, right: Side) -> Opposed:
    """Both sides roll d100 under their value; the higher tier wins, equal tiers tie."""
    if actor.pack().check.roll != "d100":
        raise GameError(
            _("Opposed checks are rolled under a value; in this system, roll two checks."),
        )
    rule = actor.house_rule()
    rolled = []
    for side in (left, right):
        value = max(0, min(side.value, MAX_VALUE))
        face = roll_d100().value
        rolled.append((side, value, face, coc7.grade(face, value, side.difficulty, rule)))
    winner = coc7.opposed_winner(rolled[0][3], rolled[1][3])
    detail: dict = {
        where: {"name": side.name, "total": face, "target": value, "outcome": outcome_wire(outcome)}
        for where, (side, value, face, outcome) in zip(("left", "right"), rolled, strict=True)
    }
    detail["winner"] = winner
    faces = (rolled[0][2], rolled[1][2])
    frame = frames.dice(actor.name, "opposed", "1d100 vs 1d100", list(faces), faces[0], detail=detail)
    return Opposed(events=[DiceEvent(frame)], rolls=faces, winner=winner)


# --- initiative ------------------------------------------------------------------------------------


def initiative_order(room_id: int) -> list[InitiativeEntry]:
    """The room's initiative order, highest first (ties broken by the pack's tiebreak)."""
    return list(InitiativeEntry.objects.filter(room_id=room_id))


@dataclass
class Initiative(Played):
    """An initiative roll: whose, and the value they act on."""

    name: str = ""
    value: int = 0


def initiative_roll(actor: Actor) -> Initiative:
    """Roll the actor's initiative the pack's way (its die, a modifier, a tiebreak) and
    put them in the order."""
    pack = actor.pack()
    rule = pack.initiative
    expression = rule.roll if rule else pack.default_die
    add = tiebreak = 0
    if actor.character and rule:
        if rule.add == "DEX_mod":
            add = dnd5e.modifier(int(actor.character.attributes.get("DEX", 10)))
        if rule.tiebreak:
            tiebreak = int(actor.character.attributes.get(rule.tiebreak, 0))
    result = roll_expression(expression)[0]
    value = result.total + add
    name = actor.character.name if actor.character else actor.name
    InitiativeEntry.objects.update_or_create(
        room_id=actor.room_id, name=name, defaults={"value": value, "tiebreak": tiebreak}
    )
    frame = frames.dice(
        name, "init", expression + (f"{add:+d}" if add else ""), result.rolls, value, detail={"modifier": add}
    )
    return Initiative(events=[DiceEvent(frame)], name=name, value=value)


def initiative_next(room_id: int) -> InitiativeEntry | None:
    """Move the turn to the next in the order (None when nobody has rolled)."""
    with transaction.atomic():
        entries = list(InitiativeEntry.objects.select_for_update().filter(room_id=room_id))
        if not entries:
            return None
        index = next((i for i, e in enumerate(entries) if e.current), -1)
        following = entries[(index + 1) % len(entries)]
        InitiativeEntry.objects.filter(room_id=room_id).update(current=False)
        InitiativeEntry.objects.filter(pk=following.pk).update(current=True)
    return following


def initiative_clear(room_id: int) -> None:
    """Empty the order (the fight is over)."""
    InitiativeEntry.objects.filter(room_id=room_id).delete()
