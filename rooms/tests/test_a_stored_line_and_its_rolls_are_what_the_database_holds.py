"""A turn stores its line and its rolls with plain statements and builds what it hands
on (to the broadcast, the hooks, the chronicle) without asking the database again:
what it hands on is what a later read of the database finds, saving it again updates
the same row, and each broadcast line's id is a fresh random UUID
(docs/performance.md, "Fewer statements and cheaper texts in a turn")."""

from __future__ import annotations

import uuid

import pytest
from django.forms.models import model_to_dict

from rooms.models import Audience, Speaker, TranscriptEntry, TurnEvent
from rooms.services import room_get_or_create, transcript_append, turn_events_record

pytestmark = pytest.mark.django_db


def _as_read(instance) -> dict:
    stored = type(instance).objects.get(pk=instance.pk)
    return {**model_to_dict(stored), "id": stored.pk, "created_at": stored.created_at}


def _as_handed_on(instance) -> dict:
    return {**model_to_dict(instance), "id": instance.pk, "created_at": instance.created_at}


def test_a_stored_line_is_the_row_the_database_holds():
    room = room_get_or_create(name="inn")

    line = transcript_append(room=room.pk, speaker=Speaker.PLAYER, name="Ann", member_id="m1", text="I knock")

    assert _as_handed_on(line) == _as_read(line)
    line.text = "I knock twice"
    line.save()
    assert TranscriptEntry.objects.filter(room=room).count() == 1
    assert TranscriptEntry.objects.get(pk=line.pk).text == "I knock twice"


def test_a_turns_rolls_are_the_rows_the_database_holds_after_its_line():
    room = room_get_or_create(name="inn")
    line = transcript_append(room=room, speaker=Speaker.PLAYER, name="Ann", text=".r 1d6")
    dice = {"type": "dice", "actor": "Ann", "kind": "roll", "expr": "1d6", "rolls": [4], "total": 4}

    events = turn_events_record(
        room=room.pk, events=[(dice, Audience.EVERYONE, ""), (dict(dice, total=5), Audience.KEEPERS, "m1")]
    )

    assert [event.anchor_id for event in events] == [line.pk, line.pk]
    assert [_as_handed_on(event) for event in events] == [_as_read(event) for event in events]
    assert [event.frame["total"] for event in events] == [4, 5]
    assert not events[1].visible_to(member_id="m2", is_keeper=False)
    assert TurnEvent.objects.filter(room=room).count() == 2


def test_every_line_has_a_fresh_random_uuid_for_its_id():
    room = room_get_or_create(name="inn")

    ids = [transcript_append(room=room, speaker=Speaker.PLAYER, text=f"line {n}").frame_id for n in range(50)]

    assert len(set(ids)) == 50
    for frame_id in ids:
        drawn = uuid.UUID(hex=frame_id)
        assert (drawn.version, drawn.variant, drawn.hex) == (4, uuid.RFC_4122, frame_id)
