"""A turn whose database connection Postgres dropped before the turn's commit is run
again on a new connection, once: it committed nothing, so the player loses no line."""

from __future__ import annotations

import asyncio
import select

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections

from loreweaver.testing.servers import POSTGRES_ADMIN_URL, hosted_profile
from loreweaver.wire.commits import committed
from loreweaver.wire.tests.stored_lines import stored_texts
from rooms.services import room_get_or_create, transcript_append

pytestmark = [
    pytest.mark.skipif(not hosted_profile(), reason="Postgres dropping a connection"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
async def _database_thread_lets_go():
    """The database thread's connection is closed after each test, so the test
    database can be dropped at the end of the run."""
    yield
    await sync_to_async(connections.close_all)()


def _drop_this_connection() -> int:
    """Have Postgres drop the connection this thread uses, and wait until its last words
    reach the socket: what a turn meets when an operator or a failover ends it."""
    backend = connection.connection.info.backend_pid
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    assert select.select([connection.connection.fileno()], [], [], 10)[0]
    return backend


async def test_a_turn_whose_connection_was_dropped_is_stored_once_on_a_new_one():
    room = await sync_to_async(room_get_or_create)(name="dropped")
    backends: list[int] = []

    def turn() -> str:
        backends.append(connection.connection.info.backend_pid)
        if len(backends) == 1:
            _drop_this_connection()
        return transcript_append(room=room, speaker="player", name="Ann", text="the line").text

    assert await committed(turn) == "the line"
    assert len(backends) == 2 and backends[0] != backends[1]
    assert await asyncio.to_thread(stored_texts) == ["the line"]


async def test_turns_committed_together_all_survive_a_dropped_connection():
    room = await sync_to_async(room_get_or_create)(name="together")
    runs: list[str] = []

    def stored(text: str, drop: bool = False):
        def turn() -> str:
            runs.append(text)
            if drop and runs.count(text) == 1:
                _drop_this_connection()
            return transcript_append(room=room, speaker="player", name="Ann", text=text).text

        return turn

    outcomes = await asyncio.gather(
        committed(stored("first")), committed(stored("second", drop=True)), committed(stored("third"))
    )

    assert outcomes == ["first", "second", "third"]
    assert sorted(await asyncio.to_thread(stored_texts)) == ["first", "second", "third"]


async def test_a_turn_that_fails_on_a_working_connection_is_not_run_again():
    runs: list[int] = []

    def turn() -> None:
        runs.append(1)
        raise RuntimeError("the turn broke")

    with pytest.raises(RuntimeError):
        await committed(turn)
    assert runs == [1]
