"""Every (roll 1..100) x (skill 0..100) cell of the CoC 7e ladder, for house rules 0-5
and dg, at regular, hard and extreme difficulty (docs/rules.md).

The expectation is written here from docs/rules.md as sets of rolls per rule, not computed
by the code under test.
"""

from __future__ import annotations

import pytest

from keeper.rules.coc7 import HOUSE_RULES, grade

DIFFICULTY_DIVISOR = {"regular": 1, "hard": 2, "extreme": 5}
MATCHING = {11, 22, 33, 44, 55, 66, 77, 88, 99}


def expected_rank(roll: int, skill: int, difficulty: str, rule: str) -> str:
    target = skill // DIFFICULTY_DIVISOR[difficulty]
    successes = set(range(1, target + 1))
    crits = {
        "0": {1},
        "1": set(range(1, 6)) if skill >= 50 else {1},
        "2": set(range(1, min(5, skill) + 1)) & successes,
        "3": set(range(1, 6)),
        "4": set(range(1, min(skill // 10, 5) + 1)),
        "5": set(range(1, min(skill // 5, 2) + 1)),
        "dg": {1} | (MATCHING & successes),
    }[rule]
    failures = set(range(1, 101)) - successes
    fumbles = {
        "0": {100} | (set(range(96, 101)) & failures if target < 50 else set()),
        "1": {100} | (set(range(96, 101)) & failures if target < 50 else set()),
        "2": set(range(skill + 1 if skill >= 96 else 96, 101)) & failures,
        "3": set(range(96, 101)),
        "4": {100} | (set(range(min(96 + skill // 10, 100), 101)) & failures),
        "5": {100} | (set(range(96 if skill < 50 else 99, 101)) & failures),
        "dg": {100} | (MATCHING & failures),
    }[rule]
    if roll in crits:
        return "critical"
    if roll in fumbles:
        return "fumble"
    if roll in failures:
        return "failure"
    if rule == "dg":
        return "regular"
    if roll <= skill // 5:
        return "extreme"
    if roll <= skill // 2:
        return "hard"
    return "regular"


TIER = {"fumble": 0, "failure": 1, "regular": 2, "hard": 3, "extreme": 4, "critical": 5}


@pytest.mark.parametrize("rule", HOUSE_RULES)
@pytest.mark.parametrize("difficulty", ["regular", "hard", "extreme"])
def test_every_cell_of_the_ladder(rule, difficulty):
    wrong = []
    for skill in range(0, 101):
        for roll in range(1, 101):
            want = expected_rank(roll, skill, difficulty, rule)
            got = grade(roll, skill, difficulty, rule)
            if (got.id, got.tier, got.success, got.critical, got.fumble) != (
                want,
                TIER[want],
                want in ("critical", "extreme", "hard", "regular"),
                want == "critical",
                want == "fumble",
            ):
                wrong.append((roll, skill, want, got.id))
    assert not wrong, f"{len(wrong)} cells differ, e.g. (roll, skill, want, got) {wrong[:5]}"


@pytest.mark.parametrize(
    ("roll", "skill", "difficulty", "rank"),
    [
        (1, 0, "regular", "critical"),  # a 1 is a critical even at skill 0 (rule 0)
        (100, 100, "regular", "fumble"),  # and 100 always fumbles
        (96, 49, "regular", "fumble"),
        (96, 50, "regular", "failure"),  # target 50: no 96-99 fumble
        (97, 60, "hard", "fumble"),  # hard target 30 < 50: 96+ fumbles
        (12, 60, "regular", "extreme"),
        (13, 60, "regular", "hard"),
        (30, 60, "hard", "hard"),
        (31, 60, "hard", "failure"),
        (12, 60, "extreme", "extreme"),
        (13, 60, "extreme", "failure"),
    ],
)
def test_rulebook_corners(roll, skill, difficulty, rank):
    assert grade(roll, skill, difficulty, "0").id == rank


def test_a_low_skill_cannot_crit_under_rules_4_and_5():
    assert grade(1, 9, rule="4").id != "critical"
    assert grade(1, 4, rule="5").id != "critical"
    assert grade(1, 10, rule="4").id == "critical"


def test_the_margin_is_how_far_under_the_target():
    assert grade(20, 60, "hard").margin == 10
    assert grade(70, 60).margin == -10
