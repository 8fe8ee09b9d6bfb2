"""Command-line benchmark: what reading the longest line a member may send
(4,000 characters, `TRPG_INPUT_MAX_CHARS`) costs each reader of the command dialect
that looks for numbers or marks in it (`.st` changes, `.ra`'s skill value, `.give`'s
count, `.r`'s advantage word, the chronicle's code spans), per character, beside a
short line of the same reader in the same run. A reader whose cost per character stays
near the short line's reads in one pass; one whose ratio grows with the line's length
(hundreds or more) takes time with its square, which a player can spend on purpose.

    python bench/command_lines.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "loreweaver.settings")

import django

django.setup()

from keeper import chronicle  # noqa: E402
from keeper.commands import trailing_number  # noqa: E402
from keeper.dice_commands import _ADVANTAGE  # noqa: E402
from keeper.inventory_commands import _count_of  # noqa: E402
from keeper.sheet_commands import sheet_changes  # noqa: E402

LONGEST = 4000
SPACES = " " * (LONGEST - 2)
HALF = LONGEST // 2

# Each reader, a line it reads every day, and the long lines that cost a backtracking
# pattern most: runs of spaces, digits or backticks that never complete a match.
READERS: list[tuple[str, Callable[[str], object], str, list[str]]] = [
    (
        ".st changes",
        sheet_changes,
        "STR60 Spot Hidden 70 HP-4",
        ["a " * (LONGEST // 2), "a-" * (LONGEST // 2)],
    ),
    (".ra skill value", trailing_number, "Spot Hidden 60", ["1" * (LONGEST - 1) + "x"]),
    (".give count", _count_of, "torch x3", ["a" + SPACES + "x", "a" + SPACES + "5"]),
    (".r advantage", _ADVANTAGE.search, "1d20 adv", ["1d20" + " " * (LONGEST - 8) + "x"]),
    ("chronicle code", chronicle.plain_text, "the `lamp` is lit", ["`" * (LONGEST - 1) + "\n"]),
]


def seconds_per_call(read: Callable[[str], object], line: str, budget: float) -> float:
    """The best time of one call over about `budget` seconds."""
    best = float("inf")
    deadline = time.perf_counter() + budget
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        read(line)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    budget = 0.05 if parser.parse_args().quick else 0.5
    print(f"command lines: {LONGEST}-character lines beside a short one (cost per character, ×)")
    for label, read, short, longs in READERS:
        per_char = seconds_per_call(read, short, budget) / len(short)
        for line in longs:
            spent = seconds_per_call(read, line, budget)
            ratio = spent / len(line) / per_char
            print(f"  {label:16} {line[:6]!r:10}: {spent * 1000:8.3f} ms, ×{ratio:8.2f} per character")


if __name__ == "__main__":
    main()
