"""What is committed is source: no wheel, archive, bytecode or environment sneaks in
(the image copies the whole checkout, so a stray artefact would ship too)."""

from __future__ import annotations

import shutil
import subprocess
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ARTEFACTS = (
    "*.whl",
    "*.egg",
    "*.tar.gz",
    "*.zip",
    "*.pyc",
    "*.so",
    "*.o",
    "*.sqlite3",
    "*.db",
    ".venv/*",
    "*/node_modules/*",
    "node_modules/*",
    "dist/*",
    "build/*",
    "data/*",
)


def _committed() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout
    return [path for path in listing.split("\0") if path]


def test_no_build_artefact_is_committed():
    committed = _committed()
    assert len(committed) > 100, "the listing should hold the project"
    stray = [path for path in committed if any(fnmatch(path, pattern) for pattern in ARTEFACTS)]
    assert stray == [], f"build artefacts committed: {stray}"
