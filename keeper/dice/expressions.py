"""Dice expressions: the `d20` grammar behind a safety wrapper, plus SealDice habits.

Accepted: everything `d20` parses (`NdM`, kh/kl/ph/pl, rr/ro/ra, e, mi/ma,
arithmetic), and the forms players type on SealDice tables: `3d6x5` (multiply), a bare
`4d6k3` (keep highest), `5d6!` (explode on the highest face), `7d10>=8` (count
successes, and ones), `4dF` (fudge dice), `N#expr` (repeat 1..20 times), `d%` (1..100).

Every refusal is a `DiceError` with a message in en and zh; nothing reaches a player
as a stack trace, and no expression can keep a worker busy: length, nesting, dice
count (rerolls and explosions included) and die size are capped before or while
rolling.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from base.i18n import _, say
from keeper.dice.roller import roller

if TYPE_CHECKING:
    import d20

MAX_CHARS = 200
MAX_NESTING = 20
MAX_DICE = 1000
MAX_SIDES = 10_000
MAX_REPEAT = 20

MESSAGES = {
    "empty": _("Nothing to roll."),
    "too_long": _("That dice expression is too long (at most {limit} characters)."),
    "too_deep": _("That dice expression nests too deeply (at most {limit} levels of parentheses)."),
    "too_many_dice": _(
        "That is too many dice for one roll (at most {limit}, rerolls and explosions included)."
    ),
    "die_too_big": _("That die has too many sides (at most {limit})."),
    "bad_repeat": _("A repeat count must be between 1 and {limit}, as in 3#1d20."),
    "bad_expression": _("That is not a dice expression I can roll: {detail}"),
}


class DiceError(ValueError):
    """An expression the roller refuses, with a message for the player."""

    def __init__(self, code: str, **values: object) -> None:
        super().__init__(code)
        self.code = code
        self.values = values

    def message(self, locale: str = "en") -> str:
        """The refusal in the player's language."""
        return say(locale, MESSAGES[self.code], **self.values)


@dataclass
class RollResult:
    """One rolled expression: what was rolled, every face, the total, and flags."""

    expr: str
    total: int
    rolls: list[int]
    detail: dict = field(default_factory=dict)
    # How a reply tells it, in plain text: "1d20: 14".
    breakdown: str = ""


_REPEAT = re.compile(r"^\s*(\d+)\s*#\s*(.+)$", re.S)
_POOL = re.compile(r"^(\d*)d(\d+)\s*(>=|<=|>|<)\s*(\d+)$")
_FUDGE = re.compile(r"(\d*)d[fF]")
_EXPLODE = re.compile(r"(\d*)d(\d+)!")
_BARE_KEEP = re.compile(r"k(?=\d)")
_DICE_TERM = re.compile(r"(\d*)d(\d+)")


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest


def _normalize(text: str) -> str:
    expr = text.strip().replace(" ", "")
    expr = expr.replace("×", "*").replace("x", "*").replace("X", "*")
    expr = expr.replace("d%", "d100").replace("D", "d")
    expr = _EXPLODE.sub(lambda m: f"{m.group(1)}d{m.group(2)}e{m.group(2)}", expr)
    return _BARE_KEEP.sub("kh", expr)


def _check_terms(expr: str) -> None:
    dice = 0
    for count, sides in _DICE_TERM.findall(expr):
        number = int(count) if count else 1
        if int(sides) > MAX_SIDES:
            raise DiceError("die_too_big", limit=MAX_SIDES)
        dice += number
    if dice > MAX_DICE:
        raise DiceError("too_many_dice", limit=MAX_DICE)


def _faces(node: object, out: list[int]) -> list[int]:
    """Every face rolled, rerolled and exploded ones included, in order."""
    # d20 is loaded with the first roll: building its grammar slows every process's start.
    from d20.expression import Die, Set

    def walk(node: object) -> None:
        if isinstance(node, Die):
            out.extend(int(value.number) for value in node.values)
            return
        for member in node.values if isinstance(node, Set) else getattr(node, "children", []):
            walk(member)

    walk(node)
    return out


def _roll_pool(count: int, sides: int, comparison: str, target: int, expr: str) -> RollResult:
    if count > MAX_DICE:
        raise DiceError("too_many_dice", limit=MAX_DICE)
    if sides > MAX_SIDES or sides < 1:
        raise DiceError("die_too_big", limit=MAX_SIDES)
    faces = [roller().die(sides) for _ in range(count)]
    meets = {
        ">=": lambda f: f >= target,
        ">": lambda f: f > target,
        "<=": lambda f: f <= target,
        "<": lambda f: f < target,
    }[comparison]
    successes = sum(1 for face in faces if meets(face))
    ones = faces.count(1)
    return RollResult(
        expr=expr,
        total=successes,
        rolls=faces,
        detail={"successes": successes, "ones": ones},
        breakdown=f"{expr}: {successes} successes, {ones} ones",
    )


def _roll_fudge(expr: str, faces: list[int]) -> str:
    """Roll each NdF term ourselves (faces -1/0/+1) and put its sum in its place."""

    def substitute(match: re.Match) -> str:
        count = int(match.group(1) or 1)
        if count > MAX_DICE:
            raise DiceError("too_many_dice", limit=MAX_DICE)
        rolled = [roller().die(3) - 2 for _ in range(count)]
        faces.extend(rolled)
        return f"({sum(rolled)})"

    return _FUDGE.sub(substitute, expr)


_evaluators = threading.local()


def _evaluator() -> d20.Roller:
    """This thread's d20 evaluator (its faces come from `roller()`). It keeps the
    expressions it parsed (parsing was most of what a roll cost), and every roll starts
    its dice count afresh."""
    evaluator = getattr(_evaluators, "evaluator", None)
    if evaluator is None:
        # The roller installs its source in d20 (loading d20) before d20 rolls a die.
        roller()
        import d20

        evaluator = _evaluators.evaluator = d20.Roller(context=d20.RollContext(max_rolls=MAX_DICE))
        # A roll's text is never asked for (`RollResult.result`): one stringifier serves
        # all, where d20 would make one for each roll.
        _evaluators.stringifier = d20.SimpleStringifier()
    return evaluator


def _roll_once(text: str) -> RollResult:
    expr = _normalize(text)
    if not expr:
        raise DiceError("empty")
    pool = _POOL.match(expr)
    if pool:
        count, sides, comparison, target = pool.groups()
        return _roll_pool(int(count or 1), int(sides), comparison, int(target), expr)
    fudge_faces: list[int] = []
    rollable = _roll_fudge(expr, fudge_faces)
    _check_terms(rollable)
    evaluator = _evaluator()
    import d20  # loaded by _evaluator() already; named here for its exceptions

    try:
        result = evaluator.roll(rollable, stringifier=_evaluators.stringifier)
        total = int(result.total)  # evaluated lazily: division by zero surfaces here
    except d20.TooManyRolls:
        raise DiceError("too_many_dice", limit=MAX_DICE) from None
    except RecursionError:
        raise DiceError("too_deep", limit=MAX_NESTING) from None
    except d20.RollSyntaxError:
        raise DiceError("bad_expression", detail=text.strip()[:60]) from None
    except (d20.RollError, ValueError, ZeroDivisionError, OverflowError) as exc:
        raise DiceError("bad_expression", detail=str(exc)[:80]) from None
    detail: dict = {}
    if result.crit == d20.CritType.CRIT:
        detail["critical"] = True
    elif result.crit == d20.CritType.FAIL:
        detail["fumble"] = True
    return RollResult(
        expr=expr,
        total=total,
        rolls=fudge_faces + _faces(result.expr, []),
        detail=detail,
        breakdown=f"{expr}: {total}",
    )


def roll_expression(text: str) -> list[RollResult]:
    """Roll `text` (once, or N times for `N#expr`); raises DiceError when refused."""
    if len(text) > MAX_CHARS:
        raise DiceError("too_long", limit=MAX_CHARS)
    if _nesting(text) > MAX_NESTING:
        raise DiceError("too_deep", limit=MAX_NESTING)
    repeat = _REPEAT.match(text)
    if repeat:
        times = int(repeat.group(1))
        if not 1 <= times <= MAX_REPEAT:
            raise DiceError("bad_repeat", limit=MAX_REPEAT)
        return [_roll_once(repeat.group(2)) for _ in range(times)]
    return [_roll_once(text)]
