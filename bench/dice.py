"""Dice benchmark: rolls per second through the table's roller, beside a plain
`random.randint` baseline measured in the same run; and how long a refusal takes.

    python bench/dice.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from keeper.dice import DiceError, Roller, roll_expression
from keeper.dice.percentile import roll_d100
from keeper.rules.coc7 import grade


def rate(work: Callable[[], object], seconds: float) -> float:
    """Calls of `work` per second over about `seconds`."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            work()
        count += 100
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    seconds = 0.2 if parser.parse_args().quick else 2.0
    Roller().install()  # the production CSPRNG

    cases = [
        ("1d100", lambda: roll_expression("1d100"), lambda: random.randint(1, 100)),
        (
            "CoC check, 2 bonus dice",
            lambda: grade(roll_d100(bonus=2).value, 60),
            lambda: min(random.randint(1, 100) for _ in range(3)),
        ),
        (
            "4d6kh3",
            lambda: roll_expression("4d6kh3"),
            lambda: sum(sorted(random.randint(1, 6) for _ in range(4))[1:]),
        ),
    ]
    print("dice: rolls per second, the table's roller vs random.randint")
    for label, ours, baseline in cases:
        ours_rate, base_rate = rate(ours, seconds), rate(baseline, seconds)
        ratio = ours_rate / base_rate
        print(f"  {label:24}: {ours_rate:10.0f}/s   randint {base_rate:10.0f}/s   ratio {ratio:.3f}")

    print("dice: refusing hostile expressions")
    for label, expression in [
        ("1000000d6", "1000000d6"),
        ("1d1000000000", "1d1000000000"),
        ("10,000 nested parentheses", "(" * 10_000 + "1" + ")" * 10_000),
        ("100 KB expression", "1d6+" * 25_000 + "1"),
    ]:
        start = time.perf_counter()
        try:
            roll_expression(expression)
            outcome = "rolled?!"
        except DiceError as refused:
            outcome = refused.code
        print(f"  {label:26}: {outcome:14} in {(time.perf_counter() - start) * 1000:7.3f} ms")


if __name__ == "__main__":
    main()
