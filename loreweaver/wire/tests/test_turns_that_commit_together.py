"""Turns that reach the database thread together share one commit, and nothing more."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from loreweaver.wire.commits import committed
from loreweaver.wire.tests.stored_lines import stored_texts
from rooms.services import room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _database_thread_lets_go():
    """The database thread's connection is closed after each test, so the test
    database can be dropped at the end of the run."""
    yield
    await sync_to_async(connections.close_all)()


async def test_a_failed_turn_does_not_undo_the_turns_committed_with_it():
    first = await sync_to_async(room_get_or_create)(name="first")
    second = await sync_to_async(room_get_or_create)(name="second")

    def stored(room, text):
        return lambda: transcript_append(room=room, speaker="player", name="Ann", text=text).text

    def stored_then_failed():
        transcript_append(room=second, speaker="player", name="Bob", text="half a turn")
        raise RuntimeError("the turn broke after writing")

    outcomes = await asyncio.gather(
        committed(stored(first, "before")),
        committed(stored_then_failed),
        committed(stored(second, "after")),
        return_exceptions=True,
    )

    assert outcomes[0] == "before" and outcomes[2] == "after"
    assert isinstance(outcomes[1], RuntimeError)
    # Read on another thread, so on another connection: what was released is committed.
    assert await asyncio.to_thread(stored_texts) == ["before", "after"]


async def test_a_turn_alone_that_fails_leaves_nothing_behind():
    room = await sync_to_async(room_get_or_create)(name="alone")

    def stored_then_failed():
        transcript_append(room=room, speaker="player", name="Ann", text="half a turn")
        raise RuntimeError("the turn broke after writing")

    with pytest.raises(RuntimeError):
        await committed(stored_then_failed)
    assert await asyncio.to_thread(stored_texts) == []


async def test_a_turn_that_failed_beside_others_is_not_run_again():
    room = await sync_to_async(room_get_or_create)(name="beside")
    runs: list[str] = []

    def stored(text: str):
        def turn() -> str:
            runs.append(text)
            return transcript_append(room=room, speaker="player", name="Ann", text=text).text

        return turn

    def failed() -> None:
        runs.append("failed")
        transcript_append(room=room, speaker="player", name="Bob", text="half a turn")
        raise RuntimeError("the turn broke after writing")

    outcomes = await asyncio.gather(
        committed(stored("before")), committed(failed), committed(stored("after")), return_exceptions=True
    )

    assert outcomes[0] == "before" and outcomes[2] == "after"
    assert isinstance(outcomes[1], RuntimeError)
    assert runs.count("failed") == 1
    assert await asyncio.to_thread(stored_texts) == ["before", "after"]


async def test_turns_committed_together_cost_the_database_no_savepoint():
    room = await sync_to_async(room_get_or_create)(name="plain")
    statements = CaptureQueriesContext(connection)
    await sync_to_async(statements.__enter__)()  # on the database thread, whose connection it is

    def stored(text: str):
        return lambda: transcript_append(room=room, speaker="player", name="Ann", text=text).text

    try:
        outcomes = await asyncio.gather(*(committed(stored(text)) for text in ("one", "two", "three")))
    finally:
        await sync_to_async(statements.__exit__)(None, None, None)
    sent = await sync_to_async(lambda: [query["sql"] for query in statements.captured_queries])()

    assert outcomes == ["one", "two", "three"]
    assert len([sql for sql in sent if "INSERT" in sql]) == 3
    assert [sql for sql in sent if "SAVEPOINT" in sql] == []
