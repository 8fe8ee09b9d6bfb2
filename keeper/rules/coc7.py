"""Call of Cthulhu 7e: difficulty, the rank ladder with its house rules, sanity,
growth and opposed checks (docs/rules.md, "Call of Cthulhu 7e checks"); the d100 with
bonus and penalty dice is `keeper/dice/percentile.py`.

House rules follow SealDice's `.setcoc` numbering: 0 is the rulebook, 1-5 the common
variants, `dg` Delta Green. Where docs/rules.md is silent this module settles it so:
a fumble needs a failed roll, except that a roll of 100 always fumbles (rule 2 aside,
whose fumble range starts above a 96+ skill) and rule 3 fumbles 96-100 whatever the
skill; crits under rules 2 and `dg` need a success, other rules' crit ranges apply
as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from keeper.dice.expressions import roll_expression
from keeper.dice.percentile import PercentileRoll, roll_d100
from keeper.dice.roller import roller
from keeper.rules.outcome import Outcome

HOUSE_RULES = ("0", "1", "2", "3", "4", "5", "dg")
TIERS = {"fumble": 0, "failure": 1, "regular": 2, "hard": 3, "extreme": 4, "critical": 5}


def target_for(skill: int, difficulty: str = "regular") -> int:
    """The number to roll under: the skill, halved for hard, a fifth for extreme, 1 for critical."""
    return {"regular": skill, "hard": skill // 2, "extreme": skill // 5, "critical": 1}[difficulty]


def _matching_digits(roll: int) -> bool:
    return roll < 100 and roll % 11 == 0


def _crit(roll: int, skill: int, success: bool, rule: str) -> bool:
    if rule == "0":
        return roll == 1
    if rule == "1":
        return roll <= (5 if skill >= 50 else 1)
    if rule == "2":
        return success and roll <= min(5, skill)
    if rule == "3":
        return roll <= 5
    if rule == "4":
        return roll <= min(skill // 10, 5)
    if rule == "5":
        return roll <= min(skill // 5, 2)
    return roll == 1 or (success and _matching_digits(roll))  # dg


def _fumble(roll: int, skill: int, target: int, success: bool, rule: str) -> bool:
    if rule == "3":
        return roll >= 96
    if rule == "2":
        return not success and roll >= (skill + 1 if skill >= 96 else 96)
    if roll == 100:
        return True
    if success:
        return False
    if rule in ("0", "1"):
        return roll >= 96 and target < 50
    if rule == "4":
        return roll >= min(96 + skill // 10, 100)
    if rule == "5":
        return roll >= (96 if skill < 50 else 99)
    return _matching_digits(roll)  # dg


def grade(roll: int, skill: int, difficulty: str = "regular", rule: str = "0") -> Outcome:
    """Grade a d100 roll (1..100) against a skill under a difficulty and a house rule."""
    target = target_for(skill, difficulty)
    success = roll <= target
    margin = target - roll
    if _crit(roll, skill, success, rule):
        rank = "critical"
    elif _fumble(roll, skill, target, success, rule):
        rank = "fumble"
    elif not success:
        rank = "failure"
    elif rule == "dg":
        rank = "regular"  # Delta Green has no hard or extreme successes
    elif roll <= skill // 5:
        rank = "extreme"
    elif roll <= skill // 2:
        rank = "hard"
    else:
        rank = "regular"
    return Outcome(
        id=rank,
        success=rank in ("critical", "extreme", "hard", "regular"),
        critical=rank == "critical",
        fumble=rank == "fumble",
        tier=TIERS[rank],
        margin=margin,
    )


@dataclass(frozen=True)
class SanityResult:
    """A sanity check: the roll, its grade, the loss and what is left."""

    roll: PercentileRoll
    outcome: Outcome
    loss_expr: str
    loss: int
    remaining: int
    loss_rolls: list[int]

    @property
    def temporary_insanity_hint(self) -> bool:
        """A loss of 5 or more in one go: the keeper may call for temporary insanity."""
        return self.loss >= 5


def maximum_of(expression: str) -> int:
    """The highest total `expression` can roll (every die on its top face)."""
    top = re.sub(r"(\d*)d(\d+)", lambda m: f"({int(m.group(1) or 1)}*{m.group(2)})", expression)
    return roll_expression(top)[0].total


def sanity_check(
    *, sanity: int, success_loss: str, failure_loss: str, rule: str = "0", bonus: int = 0, penalty: int = 0
) -> SanityResult:
    """`.sc success/failure`: d100 against current SAN; a fumble loses the most it can."""
    rolled = roll_d100(bonus, penalty)
    outcome = grade(rolled.value, sanity, "regular", rule)
    loss_expr = success_loss if outcome.success else failure_loss
    if outcome.fumble:
        loss, loss_rolls = maximum_of(failure_loss), []
    else:
        result = roll_expression(loss_expr)[0]
        loss, loss_rolls = max(result.total, 0), result.rolls
    return SanityResult(
        roll=rolled,
        outcome=outcome,
        loss_expr=loss_expr,
        loss=loss,
        remaining=max(sanity - loss, 0),
        loss_rolls=loss_rolls,
    )


def growth(skill: int) -> tuple[int, int, int]:
    """`.en`: roll d100; above the skill or above 95, the skill grows by 1d10 (to 100 at most).

    Returns (roll, gain, new skill).
    """
    check = roller().die(100)
    if check > skill or check > 95:
        gain = roller().die(10)
        return check, gain, min(skill + gain, 100)
    return check, 0, skill


def opposed_winner(left: Outcome, right: Outcome) -> str:
    """The higher tier wins; equal tiers tie (CoC). Returns left, right or tie."""
    if left.tier != right.tier:
        return "left" if left.tier > right.tier else "right"
    return "tie"
