"""Percentile dice: d100 as a tens die and a units die, with bonus and penalty dice.

The mechanic is generic (Call of Cthulhu, Delta Green and other d100 systems share it);
how a roll is graded against a skill belongs to the rule system (`keeper/rules/coc7.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from keeper.dice.roller import roller


@dataclass(frozen=True)
class PercentileRoll:
    """A d100 roll with bonus or penalty dice: every candidate, and the one kept."""

    value: int
    units: int
    tens: list[int]
    bonus: int
    penalty: int


def d100_value(tens: int, units: int) -> int:
    """Tens 00-90 and units 0-9 make 1..100; 00 with 0 is 100, the worst roll."""
    value = tens + units
    return 100 if value == 0 else value


def roll_d100(bonus: int = 0, penalty: int = 0) -> PercentileRoll:
    """Roll d100 with bonus/penalty tens dice (they cancel one for one).

    Bonus keeps the candidate with the lowest full value, penalty the highest; full
    values are compared, so tens 0 with units 0 (= 100) is the worst candidate.
    """
    net = bonus - penalty
    units = roller().die(10) - 1
    tens = [roller().tens() for _ in range(1 + abs(net))]
    candidates = [d100_value(t, units) for t in tens]
    value = min(candidates) if net > 0 else max(candidates)
    return PercentileRoll(value=value, units=units, tens=tens, bonus=max(net, 0), penalty=max(-net, 0))
