"""This process's database connections.

Hosted (Postgres), Django's connections come from a pool per process (`base.py` here,
`ENGINE = "base.database"`), at most `TRPG_DB__POOL_SIZE` of them, each given back at
the end of every HTTP request, backup and readiness check; the process's database
thread keeps the one it took (`keep_connection_on_this_thread`). Embedded (SQLite),
each long-lived thread keeps its own, and HTTP requests run on a few such threads
(`loreweaver/ops/http_threads.py`). `connection_numbers` tells `/metrics` what is held.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, connections

_thread = threading.local()


def keep_connection_on_this_thread() -> None:
    """From now on this thread keeps the pooled connection it takes, checking it with a
    query at the start of each call instead of taking one from the pool and giving it
    back each time: for the process's database thread, which runs one call at a time for
    as long as the process lives, and makes most of its calls."""
    _thread.keeps_its_connection = True


def keeps_its_connection() -> bool:
    """Whether this thread keeps its pooled connection between calls."""
    return getattr(_thread, "keeps_its_connection", False)


@dataclass(frozen=True)
class ConnectionNumbers:
    """What this process holds of the database now; None where the profile cannot say."""

    open: int | None
    in_use: int | None = None
    most: int | None = None
    waiting: int | None = None


def connection_numbers() -> ConnectionNumbers:
    """Connections this process holds: the pool's (hosted), or the open handles on the
    SQLite file (embedded, where Linux shows them)."""
    wrapper = connections[DEFAULT_DB_ALIAS]
    pool = getattr(wrapper, "pool", None)
    if pool is not None:
        stats = pool.get_stats()
        size = stats["pool_size"]
        return ConnectionNumbers(
            open=size,
            in_use=size - stats["pool_available"],
            most=stats["pool_max"],
            waiting=stats["requests_waiting"],
        )
    return ConnectionNumbers(open=_handles_on(str(wrapper.settings_dict["NAME"])))


def _handles_on(path: str) -> int | None:
    """How many of this process's file descriptors are open on `path` (one per SQLite
    connection); None where /proc does not show them."""
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return None
    count = 0
    for descriptor in descriptors:
        try:
            if os.readlink(f"/proc/self/fd/{descriptor}") == path:
                count += 1
        except OSError:  # closed since it was listed
            continue
    return count
