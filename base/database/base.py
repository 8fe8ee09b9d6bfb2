"""The hosted profile's database backend: Django's Postgres backend with a pool that
recovers at once from connections Postgres dropped (`ENGINE = "base.database"`).

Django's own pool (`OPTIONS["pool"]`) checks a connection as it hands it out, but
when the check fails it sleeps a second, and twice as long for each broken one after
it, before trying the next: after `pg_terminate_backend` or a Postgres restart, every
idle connection is broken, and a turn waited a minute or more for a good one. Here a
broken connection is swapped for another at once, and the pool checks all its idle
ones then, so only one turn per process meets a broken connection, and it does not
notice.
"""

from __future__ import annotations

import time

import psycopg
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base as postgresql
from psycopg_pool import ConnectionPool, PoolTimeout

from base import metrics


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
    """Django's Postgres backend, pooling with `TablePool`."""

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
