"""The room's hook scripts, kept per process between turns (`packs.services.room_hook_scripts`).

Every line of play and every public roll asks for the room's hook scripts, and they
change only when a pack is installed, removed, turned on or off in a room, or a card
import, a restore or a reset writes the room's card hooks. Each of those writes bumps
one generation number in the cache once it commits, and a process keeps a room's
scripts only while the generation they were read under is the current one. The
generation is read before the scripts, so a write that commits between the two is seen
at the next turn at the latest.

Only where the cache is the process's own memory (the embedded profile): there asking
it is nearly free and saves a query of SQLite. Where the cache is shared (Redis on the
hosted profile) asking it whether anything changed costs a round trip and more CPU than
Postgres takes to answer the query itself (measured under `bench/fanout.py`), so the
scripts are read every time and every process sees a change at its next turn; only a
turn that learnt with its key that its room has none (`keeper.characters.key_at_the_table`,
in the same transaction) reads none, unless its own thread wrote to some room's scripts
since (`changes_here`).

A writer in another process that shares no cache with the server (the embedded
profile's `manage.py pack remove` beside a running server) bumps only its own; kept
scripts therefore also expire after `TTL_SECONDS`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save

log = logging.getLogger(__name__)

GENERATION_KEY = "packs:hook-scripts-generation"
TTL_SECONDS = 5.0

_lock = threading.Lock()
_written = threading.local()
# room id -> (generation, monotonic time read, scripts)
_kept: dict[int, tuple[int, float, list]] = {}


def _generation() -> int:
    """The current generation; -1 (keep nothing: read the scripts) when the cache
    cannot say."""
    try:
        found = cache.get(GENERATION_KEY)
        if found is None:
            # A random start: a cache emptied (a Redis restart) never brings back a
            # generation some process still keeps scripts under.
            cache.add(GENERATION_KEY, random.getrandbits(48), timeout=None)
            found = cache.get(GENERATION_KEY)
    except Exception as exc:  # Redis away: the turn goes on, reading its scripts
        log.warning("hook scripts' generation unreadable: %r", exc)
        return -1
    return int(found) if found is not None else -1


def kept_here() -> bool:
    """Whether this process keeps the scripts between turns: where the cache is its own
    memory (see the module docstring); elsewhere each turn reads them, unless it knows
    its room has none."""
    return settings.CACHES["default"]["BACKEND"] == "base.cache.ProcessMemoryCache"


def scripts(room_id: int, read: Callable[[int], list]) -> list:
    """The room's scripts as `read(room_id)` returns them, read again only when a write
    since the last read may have changed them (or `TTL_SECONDS` passed); read every
    time where the cache is shared."""
    if not kept_here():
        return read(room_id)
    generation = _generation()
    now = time.monotonic()
    with _lock:
        kept = _kept.get(room_id)
    if kept is not None and kept[0] == generation and generation != -1 and now - kept[1] < TTL_SECONDS:
        return list(kept[2])
    fresh = read(room_id)
    with _lock:
        _kept[room_id] = (generation, now, fresh)
    return list(fresh)


def changed() -> None:
    """The hook scripts of some room may have changed: once the transaction commits
    (at once outside one), every process reads them again; this thread's
    `changes_here` counts the change at once."""
    _written.count = changes_here() + 1
    transaction.on_commit(_bump)


def changes_here() -> int:
    """How many writes this thread has made that may have changed some room's hook
    scripts: a turn that learnt its room has none goes on knowing it only while this
    stays the same (`packs.services.room_hook_scripts`)."""
    return getattr(_written, "count", 0)


def _bump() -> None:
    with _lock:  # this process need not wait for the cache to tell it
        _kept.clear()
    if not kept_here():
        return  # nobody keeps scripts under a generation
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # no generation yet (or the cache was emptied): start one
        cache.add(GENERATION_KEY, random.getrandbits(48), timeout=None)
    except Exception as exc:  # the change stands; other processes read again within the TTL
        log.warning("hook scripts' generation not bumped: %r", exc)


def _model_changed(sender: type, **kwargs: object) -> None:
    changed()


def connect() -> None:
    """Bump the generation at every save or delete of the models the scripts come from
    (cascades included: Django sends the signals of what a delete cascades to once a
    receiver listens). Bulk writes send none: their callers call `changed()`."""
    from packs.models import InstalledPack, PackFile, RoomHook, RoomPack

    for model in (InstalledPack, PackFile, RoomPack, RoomHook):
        for signal in (post_save, post_delete):
            signal.connect(_model_changed, sender=model, dispatch_uid=f"packs.hook-cache.{model.__name__}")
