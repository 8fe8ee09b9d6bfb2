"""Dice expressions: the d20 grammar, SealDice forms, and the safety caps (docs/rules.md)."""

from __future__ import annotations

import pytest

from keeper.dice import DiceError, roll_expression

pytestmark = pytest.mark.usefixtures("seeded")


def one(text: str):
    (result,) = roll_expression(text)
    return result


def test_arithmetic_and_faces():
    result = one("1d1+1")
    assert (result.total, result.rolls) == (2, [1])


@pytest.mark.parametrize(
    ("typed", "rolled"),
    [("3d6x5", "3d6*5"), ("3d6X5", "3d6*5"), ("4d6k3", "4d6kh3"), ("5d6!", "5d6e6"), ("d%", "d100")],
)
def test_sealdice_forms_become_d20_expressions(typed, rolled):
    assert one(typed).expr == rolled


def test_multiplying_scales_the_sum():
    result = one("3d6x5")
    assert result.total == sum(result.rolls) * 5


def test_keep_highest_drops_the_lowest_face():
    result = one("4d6k3")
    assert result.total == sum(sorted(result.rolls)[1:])


def test_exploding_dice_roll_again_on_the_highest_face():
    for _ in range(50):
        result = one("3d6!")
        assert len(result.rolls) == 3 + sum(1 for face in result.rolls if face == 6)


def test_a_success_pool_counts_successes_and_ones():
    result = one("7d10>=8")
    assert len(result.rolls) == 7
    assert result.total == sum(1 for face in result.rolls if face >= 8) == result.detail["successes"]
    assert result.detail["ones"] == result.rolls.count(1)


def test_fudge_dice_are_minus_one_zero_or_one():
    result = one("4dF+2")
    assert len(result.rolls) == 4 and set(result.rolls) <= {-1, 0, 1}
    assert result.total == sum(result.rolls) + 2


def test_percentile_is_one_to_a_hundred():
    faces = {one("d%").total for _ in range(2000)}
    assert min(faces) >= 1 and max(faces) <= 100 and 100 in faces


def test_repeats_roll_n_times():
    assert len(roll_expression("3#1d20")) == 3
    with pytest.raises(DiceError) as refused:
        roll_expression("21#1d6")
    assert refused.value.code == "bad_repeat"


def test_a_natural_twenty_and_one_are_flagged():
    flags = {tuple(sorted(one("1d20").detail)) for _ in range(400)}
    assert ("critical",) in flags and ("fumble",) in flags


@pytest.mark.parametrize(
    ("expression", "code"),
    [
        ("1000000d6", "too_many_dice"),
        ("1d1000000000", "die_too_big"),
        ("(" * 10_000 + "1" + ")" * 10_000, "too_long"),
        ("((((((((((((((((((((((1))))))))))))))))))))))", "too_deep"),
        ("1d6+" * 25_000 + "1", "too_long"),
        ("999d6e6", "too_many_dice"),
        ("1d6/0", "bad_expression"),
        ("1d0", "bad_expression"),
        ("roll me", "bad_expression"),
        ("", "empty"),
    ],
)
def test_refusals_are_clear_messages_in_both_languages(expression, code):
    with pytest.raises(DiceError) as refused:
        roll_expression(expression)
    assert refused.value.code == code
    assert refused.value.message("en") and refused.value.message("zh")
    assert refused.value.message("en") != refused.value.message("zh")


def test_the_roller_keeps_rolling_after_refusals():
    for expression in ("1000000d6", "1d1000000000", "(" * 30 + "1" + ")" * 30):
        with pytest.raises(DiceError):
            roll_expression(expression)
    assert one("2d6").total in range(2, 13)
