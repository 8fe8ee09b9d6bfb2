"""An HTTP request's database connections end with it, and a request that finds no
free connection is told so in time.

Django's ASGI handler runs each request's synchronous code (middleware, the view) on a
thread of that request's own, which ends with it. A connection that thread opened and
left open stayed with the dead thread until a garbage collection, which the server
makes rare (`loreweaver/wire/process.py`): every request that read the database held a
Postgres connection for minutes, and a burst of them reached Postgres's
`max_connections`. Hosted, Django gives a pooled connection back at the end of each
request; here every connection of the request's thread is closed as it ends, which
also closes the embedded profile's SQLite connection (the long-lived threads keep
theirs). Django's test client sends the same signal from other handlers, inside test
transactions, and is left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from psycopg_pool import PoolTimeout

log = logging.getLogger(__name__)


def close_the_requests_connections(sender: type, **kwargs: object) -> None:
    """Close the connections this thread (an ASGI request's own) opened."""
    connections.close_all()


request_finished.connect(close_the_requests_connections, sender=ASGIHandler, dispatch_uid=__name__)


def _no_free_connection(exception: BaseException) -> bool:
    seen: BaseException | None = exception
    while seen is not None:
        if isinstance(seen, PoolTimeout):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


BUSY = "The database is busy; try again in a moment."


class DatabaseBusy:
    """Django middleware: a view that found no free database connection within
    `TRPG_DB__POOL_TIMEOUT` seconds answers 503 with Retry-After, not a 500 with a
    traceback in the log."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """503 for a pool that had no connection to give in time; anything else as usual."""
        if not _no_free_connection(exception):
            return None
        pool = settings.DATABASES["default"]["OPTIONS"].get("pool") or {}
        log.warning(
            "%s %s: no database connection was free within %s s (TRPG_DB__POOL_SIZE=%s)",
            request.method,
            request.path,
            pool.get("timeout"),
            pool.get("max_size"),
        )
        return JsonResponse({"detail": BUSY}, status=503, headers={"Retry-After": "1"})
