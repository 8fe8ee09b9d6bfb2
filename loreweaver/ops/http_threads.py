"""Django's HTTP requests run on a few long-lived threads, and one that finds no free
database connection is told so in time.

Django's own ASGI handler runs each request's synchronous code (middleware, the view)
on a thread made for that request, which ends with it. With persistent connections a
connection that thread opened stayed with the dead thread until a garbage collection,
which this server makes rare (`loreweaver/wire/process.py`): every request that read
the database held a Postgres connection for minutes, and a burst of requests took
every connection Postgres had. Even closed at once, each request's SQLite connection
left its file handle open while the table's own connection holds its lock (SQLite
keeps such a handle for reuse), so the handles grew with the requests in flight.

Here each request borrows one of a fixed set of threads, as a threaded WSGI server's
requests do (`request_threads`: half of `TRPG_DB__POOL_SIZE`). A thread keeps its
SQLite connection from one request to the next (embedded), or gives its pooled one
back at the end of each (hosted: Django's `close_old_connections` with
`CONN_MAX_AGE=0`); a burst of requests waits for a free thread instead of taking
connections, so the table's turns, the readiness checks and the backups always find
one in the pool.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger(__name__)


def request_threads() -> int:
    """How many threads serve Django's HTTP requests: half the pool, so that requests
    can never hold every connection the process may open."""
    return max(1, settings.TRPG_DB_POOL_SIZE // 2)


class ThreadedASGIHandler(ASGIHandler):
    """Django's ASGI handler, each request on one of `threads` long-lived threads (the
    most recently freed first, so that a quiet server uses one)."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        self._idle = [ThreadPoolExecutor(1, thread_name_prefix=f"http-{n}") for n in range(threads)]
        self._free = asyncio.Semaphore(threads)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP here, not {scope['type']}")
        async with self._free:
            executor = self._idle.pop()
            try:
                # Every synchronous call of this request (middleware, view, signals)
                # runs on this executor's one thread.
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, receive, send)
            finally:
                self._idle.append(executor)


BUSY = "The database is busy; try again in a moment."


def _no_free_connection(exception: BaseException) -> bool:
    # The pool is the Postgres backend's (base/database/base.py), which imports it: an
    # embedded server never loads psycopg (a sixth of a second of its start).
    pool = sys.modules.get("psycopg_pool")
    if pool is None:
        return False
    seen: BaseException | None = exception
    while seen is not None:
        if isinstance(seen, pool.PoolTimeout):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class DatabaseBusy:
    """Django middleware: a view that found no free database connection within
    `TRPG_DB__POOL_TIMEOUT` seconds answers 503 with Retry-After (and the log says
    why in one line), not a 500 with a traceback."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """503 for a pool that had no connection to give in time; anything else as usual."""
        if not _no_free_connection(exception):
            return None
        log.warning(
            "%s %s: no database connection was free within %s s (TRPG_DB__POOL_SIZE=%s)",
            request.method,
            request.path,
            settings.TRPG_DB_POOL_TIMEOUT,
            settings.TRPG_DB_POOL_SIZE,
        )
        return JsonResponse({"detail": BUSY}, status=503, headers={"Retry-After": "1"})
