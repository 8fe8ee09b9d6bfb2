"""The console's room page is the room's control centre (docs/operations.md, "The
operator console"): its story as players saw it (dice and NPC lines in place, text
rendered, readable times, keeper-only rolls left out), its keys with a link that mints
one for it, its backups to restore, and its actions as buttons."""

from __future__ import annotations

import pytest
from django.urls import reverse

from base import frames
from keeper.frames import outcome_wire
from keeper.rules import coc7
from rooms.models import Audience
from rooms.services import key_mint, room_get_or_create, transcript_append, turn_event_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(admin_client):
    room = room_get_or_create(name="harbour")
    key_mint(room="harbour", name="Kay", role="keeper")
    transcript_append(room=room, speaker="player", name="Tess", text="I **light** the _lamp_ <now>.")
    turn_event_record(room=room, frame=frames.dice("Tess", "roll", "1d6", [4], 4))
    turn_event_record(room=room, frame=frames.narrative("n1", "npc", "Who goes there?", name="Old Ben"))
    checked = outcome_wire(coc7.grade(40, 50))
    turn_event_record(
        room=room, frame=frames.dice("Tess", "check", "1d100", [40], 40, target=50, outcome=checked)
    )
    turn_event_record(
        room=room,
        frame=frames.dice("Kay", "roll", "1d100", [13], 13),
        audience=Audience.KEEPERS,
    )
    return room, admin_client.get(reverse("admin:rooms_room_change", args=[room.pk])).content.decode()


def test_the_story_shows_as_players_saw_it(page):
    room, html = page
    assert "I <strong>light</strong> the <em>lamp</em> &lt;now&gt;." in html, "rendered, and escaped"
    assert "Tess rolls 1d6: 4 → <b>4</b>" in html and "<b>Old Ben</b>: <p>Who goes there?</p>" in html
    assert "Tess rolls 1d100: 40 → <b>40</b> (Success)" in html, "an outcome reads as a word"
    assert "1d100: 13" not in html, "a keeper-only roll is not what players saw"
    assert f"{room.created_at:%Y-%m-%d} " in html and " UTC</small>" in html


def test_the_keys_are_listed_with_a_link_that_mints_one_here(page):
    room, html = page
    assert "Kay" in html and "keeper" in html
    assert f"{reverse('admin:rooms_accesskey_add')}?room={room.pk}" in html


def test_the_actions_are_buttons_for_this_room(page, admin_client):
    room, html = page
    assert f"name='_selected_action' value='{room.pk}'" in html
    for action in ("export_backup", "reset_story", "delete_data_with_backup", "delete_room_with_backup"):
        assert f"value='{action}'" in html
    asked = admin_client.post(
        reverse("admin:rooms_room_changelist"),
        {"action": "reset_story", "_selected_action": [room.pk], "_continue": "1"},
    ).content.decode()
    assert "Are you sure you want to reset the story?" in asked and "nobody is online" in asked


def test_an_outcome_reads_in_the_consoles_language(page, admin_client):
    room, _html = page
    url = reverse("admin:rooms_room_change", args=[room.pk])
    chinese = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Tess 掷 1d100：40 → <b>40</b> (成功)" in chinese
