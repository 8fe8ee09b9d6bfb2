"""Named places where the server can be made to fail on purpose, for fault tests.

`TRPG_FAILPOINTS` lists them, comma-separated, each as `name` (fail every time) or
`name*N` (fail the next N times): `TRPG_FAILPOINTS="join.presence*1,close.detach*2"`,
or `name@hold`: the first `hit` does not fail but holds its thread (log line "failpoint
<name> holds") until a file called `<name>` appears in `<TRPG_DATA_DIR>/failpoints/`
(at most a minute), so a test can act while work is midway without guessing at timing;
only for places that run in a worker thread. Unset, as in every real deployment, `hit`
is a dictionary lookup that does nothing. The tests use them to show that a connection
gives back its slot, its presence and its tasks whatever stage fails (docs/operations.md).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)
HOLD_SECONDS = 60.0


class InjectedFault(RuntimeError):
    """The failure a test asked for."""


def _parse(spec: str) -> tuple[dict[str, int | None], set[str]]:
    armed: dict[str, int | None] = {}
    holds: set[str] = set()
    for item in filter(None, (part.strip() for part in spec.split(","))):
        if item.endswith("@hold"):
            holds.add(item.removesuffix("@hold"))
            continue
        name, _, count = item.partition("*")
        armed[name] = int(count) if count else None
    return armed, holds


_armed, _holds = _parse(os.environ.get("TRPG_FAILPOINTS", ""))


def _hold(name: str) -> None:
    release = Path(os.environ.get("TRPG_DATA_DIR", ".")) / "failpoints" / name
    log.warning("failpoint %s holds until %s exists", name, release)
    deadline = time.monotonic() + HOLD_SECONDS
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # a test's release file is waited for, not a guess at timing


def hit(name: str) -> None:
    """Raise `InjectedFault` if the failpoint `name` is armed (and count it down); hold
    the thread if it is armed to hold (once)."""
    if name in _holds:
        _holds.discard(name)
        _hold(name)
        return
    if name not in _armed:
        return
    remaining = _armed[name]
    if remaining is not None:
        if remaining <= 1:
            del _armed[name]
        else:
            _armed[name] = remaining - 1
    raise InjectedFault(name)
