"""Sanity, growth, opposed checks and D&D 5e checks (docs/rules.md)."""

from __future__ import annotations

from keeper.dice.advantage import roll_d20
from keeper.rules import coc7, dnd5e


def test_a_sanity_fumble_loses_the_maximum_of_the_failure_expression(dice):
    dice(9, 9)  # units 9, tens 90 -> 99 against SAN 40: a fumble
    result = coc7.sanity_check(sanity=40, success_loss="1", failure_loss="1d6+1")
    assert result.outcome.fumble and result.loss == 7 and result.remaining == 33
    assert result.temporary_insanity_hint


def test_a_sanity_success_loses_the_success_expression(dice):
    dice(4, 1, 0)  # units 4, tens 10 -> 14 against SAN 60; then the loss die 1d1
    result = coc7.sanity_check(sanity=60, success_loss="1d1", failure_loss="1d6")
    assert result.outcome.success and result.loss == 1 and result.loss_expr == "1d1"


def test_sanity_floors_at_zero(dice):
    dice(9, 8, 5)  # 89 against SAN 3: failure; then 1d10 face 6
    result = coc7.sanity_check(sanity=3, success_loss="0", failure_loss="1d10")
    assert result.loss == 6 and result.remaining == 0


def test_the_maximum_of_an_expression():
    assert coc7.maximum_of("1d6") == 6
    assert coc7.maximum_of("2d6+1") == 13
    assert coc7.maximum_of("1d10") == 10


def test_growth_happens_above_the_skill_or_above_95(dice):
    dice(70, 4)  # d100 face 71 > 60; then d10 face 5
    assert coc7.growth(60) == (71, 5, 65)
    dice(10)  # 11 <= 60: no growth
    assert coc7.growth(60) == (11, 0, 60)
    dice(96, 9)  # 97 > 95 even for skill 99; capped at 100
    assert coc7.growth(99) == (97, 10, 100)


def test_opposed_checks_compare_tiers_and_tie_on_equal_tiers():
    hard = coc7.grade(20, 50)
    regular = coc7.grade(40, 50)
    assert coc7.opposed_winner(hard, regular) == "left"
    assert coc7.opposed_winner(regular, hard) == "right"
    assert coc7.opposed_winner(regular, coc7.grade(45, 60)) == "tie"


def test_dnd_advantage_and_disadvantage_cancel(dice):
    dice(4, 17)
    assert roll_d20(advantage=1).kept == 18
    dice(4, 17)
    assert roll_d20(disadvantage=1).kept == 5
    dice(11)
    both = roll_d20(advantage=1, disadvantage=1)
    assert both.mode == "normal" and both.faces == [12]


def test_dnd_natural_twenty_and_one_and_the_dc():
    assert dnd5e.grade(20, 12, 25).critical
    assert dnd5e.grade(1, 30, 5).fumble
    assert dnd5e.grade(10, 15, 15).success and dnd5e.grade(10, 15, 15).margin == 0
    assert not dnd5e.grade(10, 14, 15).success
    assert dnd5e.grade(10, 14, None) is None  # no DC: an ungraded roll


def test_ability_modifiers():
    assert [dnd5e.modifier(s) for s in (1, 8, 9, 10, 11, 12, 20)] == [-5, -1, -1, 0, 0, 1, 5]
