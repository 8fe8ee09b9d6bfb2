"""The shared `visible_when` conformance table (fixtures/visible_when_vectors.json,
license beside it): every case evaluates as the table says, every rejected
expression is refused at build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from packs.conditions import ConditionError, check, evaluate, visible

VECTORS = json.loads((Path(__file__).parent / "fixtures" / "visible_when_vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["expr"])
def test_every_case_evaluates_as_the_shared_table_says(case):
    if case["expect"] == "error":
        with pytest.raises(ConditionError):
            evaluate(case["expr"], case["vars"])
        assert visible(case["expr"], case["vars"]) is False  # fail-closed
    else:
        assert evaluate(case["expr"], case["vars"]) is case["expect"]
        assert visible(case["expr"], case["vars"]) is case["expect"]


@pytest.mark.parametrize("case", VECTORS["rejected"], ids=lambda case: case["expr"])
def test_every_expression_outside_the_subset_is_refused_at_build(case):
    with pytest.raises(ConditionError):
        check(case["expr"])
    assert visible(case["expr"], {"day": 50, "clues": "ash"}) is False


def test_the_table_is_not_empty():
    assert len(VECTORS["cases"]) >= 40 and len(VECTORS["rejected"]) >= 10


@pytest.mark.parametrize(
    "expression",
    ["!a == b", "not (a || b)", "a.b.c === 'x'", "  day>=46  ", 'x == "it\\"s"'],
)
def test_conditions_in_the_subset_pass_the_build(expression):
    check(expression)


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("", "empty"),
        ("a < b < c", "chain"),
        ("x > null", "cannot be ordered"),
        ("'open", "not closed"),
        ("(a || b", "not closed"),
        ("a" * 501, "longer than"),
        ("||".join(["a"] * 120), "tokens"),
        ("x == ²", "unexpected"),  # a digit to str.isdigit, but no number
    ],
)
def test_a_refusal_says_why(expression, reason):
    with pytest.raises(ConditionError, match=reason):
        check(expression)


def test_not_negates_the_whole_comparison():
    assert evaluate("!a == b", {"a": 1, "b": 2}) is True  # !(1 == 2), not (!1) == 2
    assert evaluate("not a === 1", {"a": 1}) is False
