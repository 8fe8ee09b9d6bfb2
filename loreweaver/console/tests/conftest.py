"""What the console's tests share: a data directory of their own (for backups and any
file the server writes), a room with a story, and the room list's actions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from keeper.models import Character
from rooms.models import Room
from rooms.services import key_mint, room_get_or_create, transcript_append


@pytest.fixture(autouse=True)
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    return tmp_path


@pytest.fixture
def story_room() -> Room:
    """The room "mill": a keeper key, a line of story and a character."""
    room = room_get_or_create(name="mill")
    key_mint(room="mill", name="Kay", role="keeper")
    transcript_append(room=room, speaker="player", name="Kay", text="The wheel turns.")
    Character.objects.create(room=room, owner="tui:00000001", name="Ada", system="coc7", active=True)
    return room


@pytest.fixture
def act(admin_client):
    """Run one of the room list's actions on a room, as the staff user (following the answer)."""

    def run(action: str, room: Room, **extra: object):
        return admin_client.post(
            reverse("admin:rooms_room_changelist"),
            {"action": action, "_selected_action": [room.pk], **extra},
            follow=True,
        )

    return run
