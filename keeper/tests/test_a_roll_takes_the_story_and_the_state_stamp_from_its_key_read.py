"""A roll writes nothing of the room's state, so its turn takes the story's scene and
clock (for its chronicle entry) and the room's state stamp (for its closing `state`)
from its first read, with the key, and its writes find the room's latest line
themselves: nothing is read again (docs/performance.md, "Less work per roll"). The
commands registered as keeping the state write nothing it shows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keeper import commands
from keeper.models import ChronicleEntry, StateStamp, Story
from keeper.state import state_stamp
from keeper.turns import play_line
from rooms.models import TranscriptEntry
from rooms.services import key_mint

pytestmark = pytest.mark.django_db

STORY, STAMPS, LINES = Story._meta.db_table, StateStamp._meta.db_table, TranscriptEntry._meta.db_table
# One use of each command registered as keeping the room's state.
KEEPING_STATE = {
    "r": ".r 1d6",
    "rh": ".rh 1d20",
    "ra": ".ra Spot Hidden 50",
    "rav": ".rav 斗殴50 闪避40",
}


def _statements_on(statements: CaptureQueriesContext, table: str) -> list[str]:
    return [query["sql"] for query in statements.captured_queries if table in query["sql"]]


def test_a_roll_is_chronicled_in_the_scene_and_at_the_hour_read_with_its_key():
    player = key_mint(room="inn", name="Ann")
    room_id = player.access_key.room_id
    Story.objects.update_or_create(room_id=room_id, defaults={"scene_name": "The Inn", "clock_minutes": 1300})

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert played is not None and played.events
    entry = ChronicleEntry.objects.get(room_id=room_id)
    assert (entry.scene, entry.clock) == ("The Inn", "Day 1, 21:40")
    reads = _statements_on(statements, STORY)
    assert len(reads) == 1 and "rooms_accesskey" in reads[0], "the story comes with the key"
    # The stamp its closing state is read by: the room's, as the key's read found it.
    assert played.state_stamp == state_stamp(room_id) > 0
    assert _statements_on(statements, STAMPS) == reads


def test_a_command_that_writes_the_story_leaves_its_stamp_to_be_read_after_it():
    keeper = key_mint(room="moving", name="Kay", role="keeper")
    room_id = keeper.access_key.room_id

    played = play_line(room_id, keeper.access_key.pk, "en", ".scene The Docks")

    assert played is not None and played.state_stamp is None
    assert Story.objects.get(room_id=room_id).scene_name == "The Docks"
    assert ChronicleEntry.objects.filter(room_id=room_id, scene="The Docks").exists()


def test_a_roll_in_a_room_without_lines_reads_no_latest_line():
    player = key_mint(room="fresh", name="Ann")
    room_id = player.access_key.room_id

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert ChronicleEntry.objects.get(room_id=room_id).last_line_id is None
    # Only the turn's writes name the transcript (the anchor, found by the statement).
    assert [sql for sql in _statements_on(statements, LINES) if not sql.startswith(("INSERT", "WITH"))] == []
    assert played is not None and played.state_stamp == 0  # nothing of its state written yet


def test_a_roll_after_a_line_is_chronicled_after_that_line():
    player = key_mint(room="told", name="Ann")
    room_id = player.access_key.room_id
    play_line(room_id, player.access_key.pk, "en", "(out of character) hello")
    line = TranscriptEntry.objects.get(room_id=room_id)

    play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert ChronicleEntry.objects.get(room_id=room_id).last_line_id == line.id


def test_every_command_registered_as_keeping_the_state_is_tried_here():
    assert {entry.name for entry in commands.REGISTRY.values() if entry.keeps_state} == set(KEEPING_STATE)


@pytest.mark.parametrize("typed", [*KEEPING_STATE.values(), "I roll [[1d6]]"])
def test_a_command_that_keeps_the_state_writes_nothing_it_shows(typed):
    keeper = key_mint(room="watched", name="Kay", role="keeper")
    room_id = keeper.access_key.room_id
    Story.objects.update_or_create(room_id=room_id, defaults={"scene_name": "The Inn", "clock_minutes": 60})
    before = state_stamp(room_id)

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, keeper.access_key.pk, "en", typed)

    assert played is not None and played.reply is not None and played.events, played
    # Every write to what `state` shows (the story among it) moves the stamp.
    assert played.state_stamp == state_stamp(room_id) == before
    assert [sql for sql in _statements_on(statements, STORY) if not sql.startswith("SELECT")] == []
    assert ChronicleEntry.objects.get(room_id=room_id).scene == "The Inn"
