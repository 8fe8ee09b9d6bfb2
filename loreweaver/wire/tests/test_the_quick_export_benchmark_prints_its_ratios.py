"""`bench/export.py` starts and prints, for `admin_export_room` and `.save`, room B's
roll latency beside the baseline without a backup, and their p99 ratio (smoke test: a
few rolls, so the figures themselves mean nothing here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_quick_export_benchmark_prints_the_ratio_for_an_export_and_a_save():
    result = subprocess.run(
        [sys.executable, "bench/export.py", "--quick", "--rolls", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"without a backup +p50 +[\d.]+ ms +p99 +[\d.]+ ms", result.stdout), result.stdout
    for label in ("admin_export_room", r"\.save"):
        assert re.search(rf"during {label} +p50 +[\d.]+ ms +p99 +[\d.]+ ms", result.stdout), result.stdout
        ratio = rf"ratio p99 during {label} / without: \d+\.\d\d \(under 3x: (yes|NO)\)"
        assert re.search(ratio, result.stdout), result.stdout
