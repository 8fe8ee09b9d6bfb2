"""A recorded roll holds its outcome's label in every language; the chronicle's line
for it (what `.recap` and the Keeper's brief read) says the label in words, never the
stored mapping (docs/decisions.md, "Campaign memory")."""

from __future__ import annotations

from base import frames
from keeper.chronicle import roll_line
from keeper.frames import outcome_wire
from keeper.rules import coc7


def _check() -> dict:
    outcome = coc7.grade(40, 50)  # a regular success
    return frames.dice(
        "Tess", "check", "1d100", [40], 40, target=50, outcome=outcome_wire(outcome), skill="spot_hidden"
    )


def test_the_chronicle_says_a_rolls_outcome_in_words():
    assert roll_line(_check()) == "Tess Spot Hidden: 40 (Success)"
    assert roll_line(_check(), "zh") == "Tess 侦查: 40 (成功)"
