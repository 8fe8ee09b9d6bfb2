"""The hosted profile's database backend: Django's Postgres backend with a pool that
recovers at once from connections Postgres dropped (`ENGINE = "base.database"`).

Django's own pool (`OPTIONS["pool"]`) checks a connection as it hands it out, but
when the check fails it sleeps a second, and twice as long for each broken one after
it, before trying the next: after `pg_terminate_backend` or a Postgres restart every
idle connection is broken, and a turn waited 1 + 2 + 4 ... seconds, up to the pool's
timeout. Here a broken connection is swapped for another at once, and the pool then
checks all its idle ones, so the turn that met the broken connection does not wait and
the turns after it meet none.
"""

from __future__ import annotations

import select
import time

import psycopg
from django.db.backends.base.base import NO_DB_ALIAS, BaseDatabaseWrapper
from django.db.backends.postgresql import base as postgresql
from psycopg_pool import ConnectionPool, PoolTimeout

from base import metrics
from base.database import keeps_its_connection


class TablePool(ConnectionPool):
    """psycopg's pool, checking each connection as it is handed out (see the module
    docstring), and counting the requests that waited in vain."""

    def getconn(self, timeout: float | None = None) -> psycopg.Connection:
        """A working connection, within `timeout` seconds (the pool's timeout when None),
        or `PoolTimeout`."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            try:
                # The pool refuses a timeout of 0 even with a connection ready.
                connection = super().getconn(max(deadline - time.monotonic(), 0.001))
            except PoolTimeout:
                metrics.DB_CONNECTION_TIMEOUTS.inc()
                raise
            try:
                self.check_connection(connection)
            except psycopg.Error:
                self.putconn(connection)  # a broken one: the pool opens another in its place
                self.check()  # Postgres dropped one, so it likely dropped the idle ones too
                continue
            return connection


class DatabaseWrapper(postgresql.DatabaseWrapper):
    """Django's Postgres backend, pooling with `TablePool`; on a thread that keeps its
    connection (`base.database.keep_connection_on_this_thread`), the connection it took
    stays with it, health-checked once per call as Django checks a persistent one."""

    def connect(self) -> None:
        """Take a connection from the pool (kept for good on a thread that keeps it)."""
        super().connect()
        if self.pool is not None and keeps_its_connection():
            # Taking one from the pool and giving it back around each call made every
            # call on the database thread run a seventh more Python calls (729 against
            # 641) than a persistent connection, for the same two messages to Postgres.
            self.close_at = None  # close_old_connections leaves it open, as CONN_MAX_AGE=None would

    def close_if_health_check_failed(self) -> None:
        """A kept connection is checked once per call (Django's own persistent check);
        one handed out by the pool was checked as it was handed out."""
        if self.pool is not None and self.close_at is None:
            BaseDatabaseWrapper.close_if_health_check_failed(self)
            return
        super().close_if_health_check_failed()

    def is_usable(self) -> bool:
        """Whether the kept connection still works, asking Postgres only when the socket
        has something to say. An idle connection has nothing to read unless Postgres
        wrote to it: when it drops one (`pg_terminate_backend`, a restart) it sends its
        last words and closes, and then Django's `SELECT 1` decides. Asking at every call
        was 1.8 of the 13 statements a hosted roll sent Postgres."""
        if self.connection is None or self.connection.closed:
            return False
        if not _has_something_to_read(self.connection):
            return True
        return super().is_usable()

    @property
    def pool(self) -> TablePool | None:
        options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not options:
            return None
        if self.alias not in self._connection_pools:
            # As Django's own pool property does, with TablePool and its own check.
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets it again on each connection
            pool = TablePool(
                kwargs=connect_kwargs, open=False, configure=self._configure_connection, **options
            )
            self._connection_pools.setdefault(self.alias, pool)
        return self._connection_pools[self.alias]


def _has_something_to_read(connection: psycopg.Connection) -> bool:
    """Whether `connection`'s socket is readable now (data, or its end), without waiting."""
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))
