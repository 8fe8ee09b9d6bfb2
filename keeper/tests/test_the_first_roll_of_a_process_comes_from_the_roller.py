"""The first `.r` of a fresh server process is drawn from the roller (the operating
system's CSPRNG), like every later one: d20 is given the roller's source before it rolls
its first die, not only once something else has asked the roller for a face."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_ROLL = """
import django
django.setup()
from keeper.dice.expressions import roll_expression
roll_expression("3d20 + 1d6")
import d20.expression
print(type(d20.expression.random).__name__)
"""


def test_a_fresh_processs_first_dice_expression_draws_from_the_csprng(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", FIRST_ROLL],
        cwd=ROOT,
        env={
            "DJANGO_SETTINGS_MODULE": "loreweaver.settings",
            "TRPG_DATA_DIR": str(tmp_path),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["SystemRandom"], result.stdout
