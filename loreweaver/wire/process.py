"""What each server process sets up for itself (both serving commands call these):
garbage collection tuned for thousands of connections, the database thread keeping its
connection, and how its event loop reports a failure in a task nobody waits for."""

from __future__ import annotations

import asyncio
import gc
import logging

from asgiref.sync import SyncToAsync

from base.database import keep_connection_on_this_thread
from loreweaver.wire.seats import is_outage

log = logging.getLogger(__name__)


def tune_garbage_collection() -> None:
    """Collect garbage the way a long-running server with thousands of connections needs.

    Python's default thresholds run a full collection every few hundred thousand
    allocations, and a full collection walks every live object: with 3,000 joined
    members that is a pause of about half a second, taken out of every room's turns
    (bench/fanout.py --idle). What exists at startup (Django, the apps, the rule packs)
    is frozen out of collection for good, and the young generation is collected less
    often; cycles among young objects (most of the garbage a turn makes) still are.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def keep_the_database_threads_connection() -> None:
    """Hosted: the database thread keeps its pooled connection between calls.

    Every `database_sync_to_async` call of the sessions and the group commit
    (`commits.py`) runs on one thread, asgiref's for thread-sensitive work outside an
    HTTP request, one call at a time for the life of the process. Taking a connection
    from the pool and giving it back around each call cost the table's turns 5 to 25 %
    more server CPU (bench/fanout.py), so this thread keeps the one it takes; every
    other thread gives its own back when its work ends.
    """
    SyncToAsync.single_thread_executor.submit(keep_connection_on_this_thread).result()


def report_outages_as_warnings(loop: asyncio.AbstractEventLoop) -> None:
    """Log a background task's failure to reach Redis or the database as a warning.

    Libraries run tasks of their own (the Redis client's connection pools, say), and
    asyncio logs such a task's unretrieved failure as an error with a
    traceback. While Redis restarts that is an outage the server rides out, as it says
    in one line elsewhere (docs/operations.md, "Faults"); anything else still is an
    error.
    """

    def handle(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        failure = context.get("exception")
        if is_outage(failure):
            log.warning("%s: %r", context.get("message", "background task failed"), failure)
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
