"""Tools from outside Python that some tests drive (Debian's `node` and `chromium`).

Where one is missing a developer's run skips those tests, naming the tool; CI
(`CI=true`, where `.ci/run` installs both) runs them anyway, so a missing tool fails
the run instead of hiding the tests."""

from __future__ import annotations

import os
import shutil

import pytest


def in_ci() -> bool:
    """Whether this run is CI's (`CI=true`)."""
    return os.environ.get("CI", "").lower() == "true"


def needs(tool: str, why: str) -> pytest.MarkDecorator:
    """A mark for tests that need `tool` on PATH: skipped without it, but in CI."""
    missing = shutil.which(tool) is None
    return pytest.mark.skipif(missing and not in_ci(), reason=f"{tool} is not on PATH: {why}")
