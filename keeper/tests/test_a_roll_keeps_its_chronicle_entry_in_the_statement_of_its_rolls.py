"""A roll's chronicle entry is written with its rolls: on Postgres in the same
statement (a data-modifying `WITH`), one round trip fewer for every roll; on SQLite
right after them. Either way the entry follows the line the rolls follow
(docs/performance.md, "A roll's writes in one statement")."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keeper.models import ChronicleEntry
from keeper.turns import play_line
from rooms.models import TurnEvent
from rooms.services import key_mint

pytestmark = pytest.mark.django_db


def test_a_roll_is_one_read_and_one_write_on_postgres():
    player = key_mint(room="inn", name="Ann")
    room_id = player.access_key.room_id
    play_line(room_id, player.access_key.pk, "en", "(( hello ))")

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, player.access_key.pk, "en", ".r 1d6")

    assert played is not None and len(played.events) == 1
    sent = [query["sql"] for query in statements.captured_queries]
    writes = [sql for sql in sent if not sql.startswith("SELECT")]
    if connection.vendor == "postgresql":
        assert len(sent) == 2 and len(writes) == 1, sent
        assert ChronicleEntry._meta.db_table in writes[0] and TurnEvent._meta.db_table in writes[0]
    else:
        assert len(writes) == 2, sent
    assert ChronicleEntry.objects.filter(room_id=room_id).count() == 1


def test_the_rolls_entry_follows_the_line_its_rolls_follow():
    player = key_mint(room="told", name="Ann")
    room_id = player.access_key.room_id
    play_line(room_id, player.access_key.pk, "en", "I open the door.")
    play_line(room_id, player.access_key.pk, "en", "(( brb ))")

    played = play_line(room_id, player.access_key.pk, "en", ".r 2d6")

    assert played is not None
    (event,) = played.events
    entry = ChronicleEntry.objects.filter(room_id=room_id, line=".r 2d6").get()
    assert entry.last_line_id == event.anchor_id == TurnEvent.objects.get(pk=event.id).anchor_id
    assert entry.last_line_id is not None
    assert str(event.frame["total"]) in entry.outcome


def test_a_hidden_roll_is_kept_for_the_keepers_with_its_event():
    keeper = key_mint(room="hidden", name="Kay", role="keeper")
    room_id = keeper.access_key.room_id

    played = play_line(room_id, keeper.access_key.pk, "en", ".rh 1d20")

    assert played is not None
    (event,) = played.events
    entry = ChronicleEntry.objects.get(room_id=room_id)
    assert (entry.line, entry.dice) == ("", [])
    assert str(event.frame["total"]) in entry.keeper_facts
