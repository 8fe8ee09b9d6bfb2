"""The console's room page names who spoke, and what came before a room's first line,
in the console's language (it follows the browser's): a Chinese operator reads 玩家 and
系统, not Player and System; a character's own name stays as it is."""

from __future__ import annotations

import pytest
from django.urls import reverse

from base import frames
from rooms.services import room_get_or_create, transcript_append, turn_event_record

pytestmark = pytest.mark.django_db


def test_a_chinese_console_names_the_speakers_in_chinese(admin_client):
    room = room_get_or_create(name="harbour")
    turn_event_record(room=room, frame=frames.dice("Tess", "roll", "1d20", [17], 17))
    transcript_append(room=room, speaker="player", name="", text="I search the boat.")
    turn_event_record(room=room, frame=frames.narrative("a1", "system", "A new quest: The lighthouse."))
    url = reverse("admin:rooms_room_change", args=[room.pk])

    chinese = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "故事开始之前" in chinese and "<b>玩家</b>" in chinese and "<b>系统</b>" in chinese
    assert "Before the first line" not in chinese and "<b>Player</b>" not in chinese

    english = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Before the first line" in english and "<b>Player</b>" in english and "<b>System</b>" in english
