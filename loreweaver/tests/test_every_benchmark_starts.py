"""Every benchmark starts (its imports load and its options parse), and `make bench` and
`make bench-quick` run each one. The benchmarks themselves run outside the test suite:
CI runs `make bench-quick` after both profiles' tests (see `bench/README.md`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Every script of bench/ with a command line, except the profile readers (tools).
TOOLS = {"profile_summary.py", "profile_phases.py"}
BENCHMARKS = sorted(
    path.name
    for path in (ROOT / "bench").glob("*.py")
    if "__main__" in path.read_text() and path.name not in TOOLS
)


def test_there_are_benchmarks_to_start():
    assert {"fanout.py", "turn.py", "export.py", "soak.py"} <= set(BENCHMARKS), BENCHMARKS


@pytest.mark.parametrize("script", BENCHMARKS)
def test_the_benchmark_starts_and_explains_its_options(script):
    result = subprocess.run(
        [sys.executable, f"bench/{script}", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage:") and "--quick" in result.stdout, result.stdout


@pytest.mark.parametrize("target", ["bench", "bench-quick"])
def test_make_runs_every_benchmark(target):
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, f"the Makefile has no {target} target"
    run = re.findall(r"bench/(\w+\.py)", recipe.group(1))
    assert sorted(set(run)) == BENCHMARKS, f"make {target} runs {run}"  # some twice (fanout.py --mix)
