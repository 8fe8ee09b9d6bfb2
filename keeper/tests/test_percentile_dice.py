"""Bonus and penalty dice compare full values; they cancel one for one (docs/rules.md)."""

from __future__ import annotations

from keeper.dice.percentile import d100_value, roll_d100
from keeper.dice.roller import Roller


def test_tens_zero_with_units_zero_is_100_the_worst_roll():
    assert d100_value(0, 0) == 100
    assert d100_value(0, 5) == 5
    assert d100_value(90, 0) == 90


def test_a_bonus_die_keeps_the_lowest_full_value(dice):
    # units die face 1 -> units 0; tens faces 0 -> 00 and 3 -> 30.
    dice(0, 0, 3)
    rolled = roll_d100(bonus=1)
    assert rolled.tens == [0, 30] and rolled.units == 0
    assert rolled.value == 30, "00+0 is 100, so 30 is the better candidate"


def test_a_penalty_die_keeps_the_highest_full_value(dice):
    dice(0, 0, 3)
    assert roll_d100(penalty=1).value == 100


def test_units_zero_with_other_tens(dice):
    dice(0, 4, 2)  # units 0, tens 40 and 20
    assert roll_d100(bonus=1).value == 20


def test_bonus_and_penalty_cancel_one_for_one(dice):
    dice(6, 7)  # units 6, one tens die 70
    rolled = roll_d100(bonus=2, penalty=2)
    assert rolled.tens == [70] and rolled.value == 76
    assert (rolled.bonus, rolled.penalty) == (0, 0)
    dice(6, 7, 1)
    rolled = roll_d100(bonus=1, penalty=2)
    assert rolled.penalty == 1 and rolled.value == 76


def test_a_seeded_roller_repeats_itself():
    Roller(seed=42).install()
    first = [roll_d100().value for _ in range(20)]
    Roller(seed=42).install()
    assert [roll_d100().value for _ in range(20)] == first
    Roller().install()
