"""The database thread's kept connection is checked before each call without a query
while Postgres has said nothing on it, and replaced when Postgres dropped it."""

from __future__ import annotations

import select
import threading

import psycopg
import pytest
from django.db import close_old_connections, connection

from base.database import keep_connection_on_this_thread
from loreweaver.testing.servers import POSTGRES_ADMIN_URL, hosted_profile

pytestmark = [
    pytest.mark.skipif(not hosted_profile(), reason="the hosted profile's Postgres connections"),
    pytest.mark.django_db(transaction=True),
]


def _on_a_thread_that_keeps_its_connection(work):
    """Run `work()` on a new thread that keeps its connection, as the database thread does."""
    outcome: dict = {}

    def run() -> None:
        keep_connection_on_this_thread()
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _last_query_of(backend: int) -> str:
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        return admin.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (backend,)).fetchone()[0]


def _select(sql: str) -> int:
    """Run `sql` as a call on the database thread starts one; the backend's process id."""
    close_old_connections()  # what every call on the database thread begins with
    with connection.cursor() as cursor:
        cursor.execute(sql)
    return connection.connection.info.backend_pid


def test_a_healthy_kept_connection_is_not_asked_select_1():
    def work() -> tuple[int, int, str]:
        first = _select("SELECT 'the marker'")
        close_old_connections()
        connection.close_if_health_check_failed()  # the check a call's first query makes
        return first, connection.connection.info.backend_pid, _last_query_of(first)

    first, after_check, last_query = _on_a_thread_that_keeps_its_connection(work)
    assert after_check == first
    assert last_query == "SELECT 'the marker'"


def test_a_kept_connection_postgres_dropped_is_replaced_before_the_next_query():
    def work() -> tuple[int, int]:
        first = _select("SELECT 1")
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        # Postgres's last words reach the socket: wait for them rather than for a time.
        assert select.select([connection.connection.fileno()], [], [], 10)[0]
        return first, _select("SELECT 2")

    first, second = _on_a_thread_that_keeps_its_connection(work)
    assert second != first
