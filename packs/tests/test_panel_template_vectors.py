"""The shared panel template conformance table (fixtures/panel_template_vectors.json,
license beside it): the server's resolver, which `.panel <id>` reads, makes every case
into exactly the blocks the table expects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from packs.panel_templates import panel_text, resolve_blocks

VECTORS = json.loads((Path(__file__).parent / "fixtures" / "panel_template_vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["id"])
def test_every_case_resolves_as_the_shared_table_says(case):
    assert resolve_blocks(case["blocks"], case["variables"], case["locale"]) == case["expect"]


def test_the_table_has_all_its_cases():
    assert len(VECTORS["cases"]) == 44
    assert len({case["id"] for case in VECTORS["cases"]}) == 44


def test_the_text_of_a_panel_reads_numbers_as_the_browser_writes_them():
    blocks = [
        {
            "kind": "meter",
            "label": {"en": "Alertness", "zh": "警觉"},
            "value": {"$var": "a"},
            "min": 0,
            "max": 10.0,
        },
        {"kind": "stat", "label": "Found", "value": {"$var": "found"}},
        {"kind": "badge", "label": {"$var": "secret"}},
    ]
    variables = [
        {"id": "a", "label": "a", "value": 3.0},
        {"id": "found", "label": "found", "value": True},
        {"id": "secret", "label": "secret", "value": "x", "hidden": True},
    ]
    assert panel_text(blocks, variables, "zh") == ["警觉: 3/10", "Found: true"]
