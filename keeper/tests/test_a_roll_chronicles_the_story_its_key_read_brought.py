"""A roll leaves the story as it was, so its chronicle entry takes the scene and the
clock from the turn's first read, with the key, and knows from the stored rolls whether
the room has a line yet: nothing is read again (docs/performance.md, "Less work per
roll"). The commands that say they leave the story never write it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keeper.models import ChronicleEntry, Story
from keeper.turns import play_line
from rooms.models import TranscriptEntry
from rooms.services import key_mint

pytestmark = pytest.mark.django_db

STORY, LINES = Story._meta.db_table, TranscriptEntry._meta.db_table


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


def test_a_roll_in_a_room_without_lines_reads_no_latest_line():
    player = key_mint(room="fresh", name="Ann")
    room_id = player.access_key.room_id

    with CaptureQueriesContext(connection) as statements:
        play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert ChronicleEntry.objects.get(room_id=room_id).last_line_id is None
    # Only the rolls' own insert names the transcript (their anchor, in the statement).
    assert [sql for sql in _statements_on(statements, LINES) if not sql.startswith("INSERT")] == []


def test_a_roll_after_a_line_is_chronicled_after_that_line():
    player = key_mint(room="told", name="Ann")
    room_id = player.access_key.room_id
    play_line(room_id, player.access_key.pk, "en", "(out of character) hello")
    line = TranscriptEntry.objects.get(room_id=room_id)

    play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert ChronicleEntry.objects.get(room_id=room_id).last_line_id == line.id


@pytest.mark.parametrize(
    "typed", [".r 1d6", ".rh 1d20", ".ra Spot Hidden 50", ".rav 斗殴50 闪避40", "I roll [[1d6]]"]
)
def test_a_command_that_leaves_the_story_never_writes_it(typed):
    keeper = key_mint(room="watched", name="Kay", role="keeper")
    room_id = keeper.access_key.room_id
    Story.objects.update_or_create(room_id=room_id, defaults={"scene_name": "The Inn", "clock_minutes": 60})

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, keeper.access_key.pk, "en", typed)

    assert played is not None and played.reply is not None and played.events, played
    writes = [sql for sql in _statements_on(statements, STORY) if not sql.startswith("SELECT")]
    assert writes == []
    assert ChronicleEntry.objects.get(room_id=room_id).scene == "The Inn"
