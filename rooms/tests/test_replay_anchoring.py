"""Turn events replay right after the line they followed live."""

from __future__ import annotations

import pytest

from rooms.models import Audience
from rooms.selectors import replay_for
from rooms.services import room_get_or_create, transcript_append, turn_event_record

pytestmark = pytest.mark.django_db


def _dice(n: int) -> dict:
    return {"type": "dice", "actor": "Ann", "kind": "roll", "expr": "1d6", "rolls": [n], "total": n}


def _texts(frames):
    return [f.get("text") or f"dice {f['total']}" for f in frames]


def test_events_follow_their_anchor_and_root_events_come_first():
    room = room_get_or_create(name="anchors")
    turn_event_record(room=room, frame=_dice(1))  # before any line: root-anchored
    transcript_append(room=room, speaker="player", name="Ann", text="first")
    turn_event_record(room=room, frame=_dice(2))
    turn_event_record(room=room, frame=_dice(3))
    transcript_append(room=room, speaker="kp", text="second", text_format="markdown")
    turn_event_record(room=room, frame=_dice(4))
    replay = replay_for(room=room, member_id="tui:00000000", is_keeper=False)
    assert _texts(replay.frames) == ["dice 1", "first", "dice 2", "dice 3", "second", "dice 4"]


def test_root_events_are_left_out_once_the_window_no_longer_reaches_the_beginning():
    room = room_get_or_create(name="window")
    turn_event_record(room=room, frame=_dice(1))
    for n in range(3):
        transcript_append(room=room, speaker="player", name="Ann", text=f"line {n}")
    replay = replay_for(room=room, member_id="tui:00000000", is_keeper=False, limit=2)
    assert _texts(replay.frames) == ["line 1", "line 2"]


def test_keeper_only_events_replay_to_keepers_and_the_member_named():
    room = room_get_or_create(name="hidden")
    transcript_append(room=room, speaker="player", name="Ann", text="I roll in secret")
    turn_event_record(room=room, frame=_dice(6), audience=Audience.KEEPERS, member_id="tui:aaaaaaaa")
    for member_id, is_keeper, expected in [
        ("tui:bbbbbbbb", False, ["I roll in secret"]),
        ("tui:aaaaaaaa", False, ["I roll in secret", "dice 6"]),
        ("tui:cccccccc", True, ["I roll in secret", "dice 6"]),
    ]:
        assert _texts(replay_for(room=room, member_id=member_id, is_keeper=is_keeper).frames) == expected


def test_a_replayed_line_keeps_its_id_and_name():
    room = room_get_or_create(name="ids")
    entry = transcript_append(room=room, speaker="player", name="Ann", text="hello")
    (frame,) = replay_for(room=room, member_id="tui:00000000", is_keeper=False).frames
    assert frame == {
        "type": "narrative",
        "id": entry.frame_id,
        "speaker": "player",
        "name": "Ann",
        "text": "hello",
        "format": "plain",
    }
