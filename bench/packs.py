"""Pack benchmark: how long reading a hostile pack takes before it is refused (the
corpus of `packs/tests/hostile_corpus.py`: zip bombs, climbing paths, bad digests,
10,000 panels, a 50 MB panels.yaml ...), beside reading the valid example pack in the
same run. Reading checks everything and writes nothing (`packs.lwpack.open_pack`).

    python bench/packs.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "loreweaver.settings")

import django

django.setup()

from base.i18n import Refusal  # noqa: E402
from packs import lwpack  # noqa: E402
from packs.tests.conftest import EXAMPLE  # noqa: E402
from packs.tests.hostile_corpus import HOSTILE  # noqa: E402


def best_of(runs: int, data: bytes) -> tuple[float, str]:
    """The fastest of `runs` reads of `data` in seconds, and how the last one ended."""
    best, outcome = float("inf"), ""
    for _ in range(runs):
        started = time.perf_counter()
        try:
            lwpack.open_pack(data)
            outcome = "read"
        except Refusal as refused:
            outcome = str(refused)[:60]
        best = min(best, time.perf_counter() - started)
    return best, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    runs = 1 if parser.parse_args().quick else 5
    valid, _ = best_of(runs, lwpack.build(EXAMPLE))
    print(f"packs: reading a pack before it is refused, best of {runs}")
    print(f"  {'the example pack (valid)':38s}: {valid * 1000:8.2f} ms")
    slowest = 0.0
    for name, (make, _problem) in HOSTILE.items():
        seconds, outcome = best_of(runs, make())
        slowest = max(slowest, seconds)
        print(f"  {name[:38]:38s}: {seconds * 1000:8.2f} ms  x{seconds / valid:7.1f}  {outcome}")
    print(f"  slowest refusal: {slowest * 1000:.0f} ms (the issue asks for under 1 s each)")


if __name__ == "__main__":
    main()
