"""The list of the longest test modules, which `make test` hands out first, names
modules that exist (a renamed module would silently lose its place)."""

from __future__ import annotations

from pathlib import Path

from loreweaver.testing.fixtures import LONGEST_FIRST

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_of_the_longest_first_list_exists():
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert missing == [], missing
