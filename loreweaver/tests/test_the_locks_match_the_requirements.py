"""`make` installs from lock files (every package pinned, with hashes), generated
from requirements*.txt by `make lock`: each lock pins what its list names, at the
list's version, and hashes every package, so an install is the one that was tested."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^\s;\\]+)", re.MULTILINE)


def _pins(text: str) -> dict[str, str]:
    return {name.lower().replace("_", "-"): version for name, version in PIN.findall(text)}


def _listed(requirements: str) -> dict[str, str]:
    """What a requirements file pins, with the files it includes (`-r`)."""
    text = (ROOT / requirements).read_text()
    pins = _pins(text)
    for included in re.findall(r"^-r\s+(\S+)", text, re.MULTILINE):
        pins |= _listed(included)
    return pins


@pytest.mark.parametrize(
    ("requirements", "lock"),
    [("requirements.txt", "requirements.lock"), ("requirements-dev.txt", "requirements-dev.lock")],
)
def test_each_lock_pins_its_list_at_the_same_versions_with_hashes(requirements, lock):
    locked_text = (ROOT / lock).read_text()
    locked = _pins(locked_text)
    drift = {
        name: (version, locked.get(name))
        for name, version in _listed(requirements).items()
        if locked.get(name) != version
    }
    assert drift == {}, f"run `make lock`: {lock} differs from {requirements} on {drift}"
    entries = re.findall(r"^([A-Za-z0-9_.-]+)==\S+((?:\s*\\\n\s+--hash=\S+)*)", locked_text, re.MULTILINE)
    assert len(entries) == len(locked) > len(_listed(requirements))
    unhashed = [name for name, hashes in entries if "--hash=sha256:" not in hashes]
    assert unhashed == [], f"{lock} has packages without a hash: {unhashed}"
