"""The browser table's `visible_when` evaluator (static/table/conditions.js) against the
server's reference (packs/conditions.py): every case of the shared conformance table,
and the edges the table leaves out, run through node in one process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from loreweaver.testing.tools import needs
from packs.conditions import ConditionError, check, evaluate

ROOT = Path(__file__).resolve().parents[3]
CONDITIONS_JS = ROOT / "loreweaver" / "table" / "static" / "table" / "conditions.js"
VECTORS = json.loads((ROOT / "packs" / "tests" / "fixtures" / "visible_when_vectors.json").read_text("utf-8"))
# The variables the Python side evaluates rejected expressions against.
REJECTED_VARIABLES = {"day": 50, "clues": "ash"}

pytestmark = needs("node", "the browser's evaluator runs in node")

# Reads {"cases": [{expr, vars}], "rejected": [{expr, vars}]} on stdin and prints, for
# each, what `evaluateOrThrow` gives (or "error"), what `evaluate` gives, and whether
# `check` refuses the expression.
RUNNER = """
import { readFileSync } from "node:fs";
import { check, evaluate, evaluateOrThrow } from %s;

const outcome = (run) => {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof Error) || !error.message) throw new Error("a refusal without a reason");
    return "error";
  }
};
const input = JSON.parse(readFileSync(0, "utf8"));
const results = input.map(({ expr, vars }) => ({
  value: outcome(() => evaluateOrThrow(expr, vars)),
  visible: evaluate(expr, vars),
  check: outcome(() => (check(expr), "ok")),
}));
process.stdout.write(JSON.stringify(results));
"""

# Edges the shared table does not pin, each as (expression, variables).
EDGES = [
    ("!a == b", {"a": 1, "b": 2}),
    ("not a === 1", {"a": 1}),
    ("!(a == b) || c", {"a": 1, "b": 1, "c": 0}),
    ("a || b && c", {"a": 0, "b": 1, "c": 0}),
    ("x === 2.0", {"x": 2}),
    ("x == 2.0", {"x": 2}),
    ("x === 1.5", {"x": 1.5}),
    ("true == 1.0", {}),
    ("x == ' 12 '", {"x": 12}),
    ("x == '1_000'", {"x": 1000}),
    ("x == '1e3'", {"x": 1000}),
    ("x == '0x10'", {"x": 16}),
    ("x == ''", {"x": 0}),
    ("x == 'inf'", {"x": "INFINITY"}),
    ("x > 1", {"x": "nan"}),
    ('x == "\u3000\u00a03\u2003"', {"x": 3}),
    ("x == '\ufeff3'", {"x": 3}),
    ("x == \u0663", {"x": 3}),
    ("x == '\u0661.\u0665'", {"x": 1.5}),
    ("x >= y", {"x": "b", "y": "a"}),
    ("x < y", {"x": "\uffff", "y": "\U0001f600"}),
    ("x < y", {"x": "10", "y": "9"}),
    ("x < 'a'", {"x": "10"}),
    ("x > true", {"x": 2}),
    ("x > null", {"x": 2}),
    ("null == undefined", {}),
    ("None === NULL", {}),
    ("TRUE", {}),
    ("a.1 === 'x'", {"a.1": "x"}),
    ("_hidden === 1", {"_hidden": 1}),
    ("constructor", {}),
    ("toString == null", {}),
    ("__proto__", {}),
    ("x === 'it\\'s'", {"x": "it's"}),
    ("x === 'a\\\\'", {"x": "a\\"}),
    ("x === 'a\\", {"x": "a\\"}),
    ("x = 1", {"x": 1}),
    ("x & y", {"x": 1, "y": 1}),
    ("1.", {}),
    (".5", {}),
    ("1.5.3 == x", {"x": 1.5}),
    ("x y", {"x": 1, "y": 1}),
    ("()", {}),
    ("(x", {"x": 1}),
    ("x)", {"x": 1}),
    ("!", {}),
    ("x ==", {"x": 1}),
    ("a < b < c", {"a": 1, "b": 2, "c": 3}),
    ("f (x)", {"x": 1}),
    ("not (x)", {"x": 0}),
    ("and", {}),
    ("   ", {}),
    ("", {}),
    ("x" * 500, {"x" * 500: 1}),
    ("x" * 501, {"x" * 501: 1}),
    ("||".join(["a"] * 100), {"a": 1}),
    ("||".join(["a"] * 101), {"a": 1}),
    ("false && x > null", {}),
    ("x || y > null", {}),
    ("mvu.潮位 > 'a'", {"mvu.潮位": "b"}),
    ("𠀋 === 1", {"𠀋": 1}),
    ("x² === 1", {"x²": 1}),
]


def _python(expression: str, variables: dict) -> dict:
    def outcome(run):
        try:
            return run()
        except ConditionError:
            return "error"

    value = outcome(lambda: evaluate(expression, variables))
    return {"value": value, "visible": value is True, "check": outcome(lambda: check(expression) or "ok")}


@pytest.fixture(scope="module")
def browser():
    """What the browser's evaluator says of every vector and edge, from one node run."""
    script = RUNNER % json.dumps(CONDITIONS_JS.as_uri())
    cases = [{"expr": case["expr"], "vars": case["vars"]} for case in VECTORS["cases"]]
    rejected = [{"expr": case["expr"], "vars": REJECTED_VARIABLES} for case in VECTORS["rejected"]]
    edges = [{"expr": expression, "vars": variables} for expression, variables in EDGES]
    completed = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(cases + rejected + edges),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    results = json.loads(completed.stdout)
    assert len(results) == len(cases) + len(rejected) + len(edges)
    return {
        "cases": results[: len(cases)],
        "rejected": results[len(cases) : len(cases) + len(rejected)],
        "edges": results[len(cases) + len(rejected) :],
    }


def test_the_browser_evaluates_every_conformance_vector_like_the_server(browser):
    wrong = []
    for case, result in zip(VECTORS["cases"], browser["cases"], strict=True):
        expected = {"value": case["expect"], "visible": case["expect"] is True}
        if {key: result[key] for key in expected} != expected:
            wrong.append((case["expr"], case["vars"], expected, result))
    assert not wrong
    assert len(browser["cases"]) == len(VECTORS["cases"]) >= 40


def test_the_browser_refuses_and_hides_every_expression_outside_the_subset(browser):
    wrong = [
        (case["expr"], result)
        for case, result in zip(VECTORS["rejected"], browser["rejected"], strict=True)
        if result != {"value": "error", "visible": False, "check": "error"}
    ]
    assert not wrong
    assert len(browser["rejected"]) == len(VECTORS["rejected"]) >= 10


def test_the_browser_checks_the_conformance_vectors_like_the_build(browser):
    for case, result in zip(VECTORS["cases"], browser["cases"], strict=True):
        assert result["check"] == _python(case["expr"], case["vars"])["check"], case["expr"]


def test_the_browser_agrees_with_the_server_on_the_edges_the_table_leaves_out(browser):
    wrong = [
        (expression, variables, _python(expression, variables), result)
        for (expression, variables), result in zip(EDGES, browser["edges"], strict=True)
        if result != _python(expression, variables)
    ]
    assert not wrong
