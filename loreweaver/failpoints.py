"""Named places where the server can be made to fail on purpose, for fault tests.

`TRPG_FAILPOINTS` lists them, comma-separated, each as `name` (fail every time) or
`name*N` (fail the next N times): `TRPG_FAILPOINTS="join.presence*1,close.detach*2"`.
Unset, as in every real deployment, `hit` is a dictionary lookup that does nothing.
The tests use them to show that a connection gives back its slot, its presence and
its tasks whatever stage fails (docs/operations.md).
"""

from __future__ import annotations

import os


class InjectedFault(RuntimeError):
    """The failure a test asked for."""


def _parse(spec: str) -> dict[str, int | None]:
    armed: dict[str, int | None] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, count = item.partition("*")
        armed[name] = int(count) if count else None
    return armed


_armed = _parse(os.environ.get("TRPG_FAILPOINTS", ""))


def hit(name: str) -> None:
    """Raise `InjectedFault` if the failpoint `name` is armed (and count it down)."""
    if name not in _armed:
        return
    remaining = _armed[name]
    if remaining is not None:
        if remaining <= 1:
            del _armed[name]
        else:
            _armed[name] = remaining - 1
    raise InjectedFault(name)
