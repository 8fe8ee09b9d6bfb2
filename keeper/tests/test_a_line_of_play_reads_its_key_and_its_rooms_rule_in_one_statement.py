"""Every line of play needs who holds its key and how the room answers lines (the Keeper
bot on or off, the turn mode, the keepers' language): one statement reads both
(docs/performance.md, "Fewer statements and cheaper texts in a turn"), and the rule it
reads is the room's, or the default in a room whose settings were never made."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keeper.models import TableSettings
from keeper.turns import play_line
from rooms.models import AccessKey
from rooms.services import key_mint

pytestmark = pytest.mark.django_db


def _reads_of_the_rule(statements: CaptureQueriesContext) -> list[str]:
    settings = TableSettings._meta.db_table
    return [query["sql"] for query in statements.captured_queries if settings in query["sql"]]


def test_a_story_line_reads_its_key_and_its_rooms_rule_in_one_statement():
    keeper = key_mint(room="inn", name="Kay", role="keeper")
    player = key_mint(room="inn", name="Ann")
    room_id = keeper.access_key.room_id
    play_line(room_id, keeper.access_key.pk, "en", ".bot off")
    play_line(room_id, keeper.access_key.pk, "en", ".language zh")

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, player.access_key.pk, "en", "I open the door")

    assert played is not None and played.entry is not None
    assert played.entry.text == "I open the door"
    assert played.settled and not played.keeper_locale  # the bot is off: nobody answers
    reads = _reads_of_the_rule(statements)
    assert len(reads) == 1 and AccessKey._meta.db_table in reads[0]


def test_a_roll_in_a_room_without_settings_plays_by_the_default_rule():
    player = key_mint(room="fresh", name="Ann")
    room_id = player.access_key.room_id

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, player.access_key.pk, "zh", ".r 1d6")

    assert played is not None and played.reply is not None
    assert "1d6" in played.reply.text
    assert not TableSettings.objects.filter(room_id=room_id).exists()  # none made to read
    assert len(_reads_of_the_rule(statements)) == 1
    # No language chosen: the roller's own is the reply's.
    assert "掷" in played.reply.text


def test_a_line_of_play_in_a_room_without_settings_is_answered_by_the_keeper():
    player = key_mint(room="quiet", name="Ann")
    room_id = player.access_key.room_id

    played = play_line(room_id, player.access_key.pk, "zh", "I look around")

    assert played is not None and played.keeper_locale == "zh"  # the bot is on by default
