"""A brief turn (a line, a roll) on an SQLite file commits on the event loop's own
thread; one whose work leaves something to run after its commit is rolled back there
and runs again on the database thread, where what runs after the commit belongs, and
its line is stored once (docs/architecture.md, "A frame's way"). The tests'
database is in memory, without a write-ahead log, where brief work stays on the
database thread: here it is told the database is a file in WAL mode."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connections, transaction

from loreweaver.wire import commits
from loreweaver.wire.tests.stored_lines import stored_texts
from rooms.services import room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _brief_work_on_the_loop(monkeypatch):
    if connections["default"].vendor != "sqlite":
        pytest.skip("brief work runs on the event loop on SQLite only")
    monkeypatch.setattr(commits, "_runs_on_the_loop", lambda: True)
    monkeypatch.setattr(commits, "_keeps_a_write_ahead_log", lambda raw: True)
    yield
    await sync_to_async(connections.close_all)()


async def test_a_brief_turn_is_committed_on_the_event_loops_thread():
    room = await sync_to_async(room_get_or_create)(name="brief")

    def stored() -> threading.Thread:
        transcript_append(room=room, speaker="player", name="Ann", text="a line")
        return threading.current_thread()

    assert await commits.committed(stored, brief=True) is threading.current_thread()
    assert await asyncio.to_thread(stored_texts) == ["a line"], "committed, as another connection sees"


async def test_a_brief_turn_that_leaves_work_for_after_its_commit_runs_on_the_database_thread():
    room = await sync_to_async(room_get_or_create)(name="after")
    ran_on: list[threading.Thread] = []
    after_commit: list[threading.Thread] = []

    def stored() -> str:
        ran_on.append(threading.current_thread())
        transcript_append(room=room, speaker="player", name="Ann", text="a line")
        transaction.on_commit(lambda: after_commit.append(threading.current_thread()))
        return "stored"

    assert await commits.committed(stored, brief=True) == "stored"
    loop_thread = threading.current_thread()
    assert ran_on[0] is loop_thread and ran_on[1] is not loop_thread, "tried here, then run on the thread"
    assert after_commit == [ran_on[1]], "what runs after the commit ran once, on the database thread"
    assert await asyncio.to_thread(stored_texts) == ["a line"], "the first try left nothing behind"
