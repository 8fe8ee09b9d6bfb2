"""The console's room page shows each roll once, in the order played (docs/operations.md,
"The operator console"): a roll's answer to the table ("Tess rolled 1d6: 4") is the
line the browser table draws as the roll's card, so the page leaves it out after the
roll it names, and keeps every other line of the table (a new investigator, a quest);
rolls made before the room's first line are shown first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from base import frames
from rooms.services import room_get_or_create, transcript_append, turn_event_record

pytestmark = pytest.mark.django_db


def test_a_rolls_answer_is_not_shown_beside_the_roll_and_other_answers_are(admin_client):
    room = room_get_or_create(name="harbour")
    transcript_append(room=room, speaker="player", name="Tess", text="I search the boat.")
    turn_event_record(room=room, frame=frames.dice("Tess", "roll", "1d6", [4], 4))
    turn_event_record(room=room, frame=frames.narrative("a1", "system", "Tess rolled 1d6: 4."))
    turn_event_record(room=room, frame=frames.narrative("a2", "system", "A new quest: The dark lighthouse."))
    turn_event_record(room=room, frame=frames.dice("Tess", "roll", "2d6", [3, 5], 8))
    turn_event_record(room=room, frame=frames.narrative("a3", "system", "Tess made an investigator, 18."))
    html = admin_client.get(reverse("admin:rooms_room_change", args=[room.pk])).content.decode()
    assert html.count("Tess rolls 1d6: 4 → <b>4</b>") == 1
    assert "Tess rolled 1d6: 4." not in html, "the roll is shown once"
    assert "A new quest: The dark lighthouse." in html
    assert "Tess made an investigator, 18." in html, "a line that does not name the roll's total stays"


def test_rolls_made_before_the_first_line_are_shown_first(admin_client):
    room = room_get_or_create(name="quay")
    turn_event_record(room=room, frame=frames.dice("Tess", "roll", "1d20", [17], 17))
    url = reverse("admin:rooms_room_change", args=[room.pk])
    html = admin_client.get(url).content.decode()
    assert "Before the first line" in html and "Tess rolls 1d20: 17 → <b>17</b>" in html

    transcript_append(room=room, speaker="player", name="Tess", text="I climb the ladder.")
    html = admin_client.get(url).content.decode()
    assert html.index("Tess rolls 1d20: 17") < html.index("I climb the ladder."), "in the order played"
