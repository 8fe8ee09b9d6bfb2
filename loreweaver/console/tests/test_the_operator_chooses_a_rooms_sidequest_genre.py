"""The operator chooses the SideQuest genre a room is listed under, on its console page
or when minting a key (docs/sidequest.md, "Genres"); without a choice it follows the
rule system, and a genre the SideQuest client has no look for is refused."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from loreweaver.wire.sidequest_table import genres
from rooms.models import Room
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def harbour() -> Room:
    room = room_get_or_create(name="harbour")
    room.open_to_all = True
    room.save()
    return room


def test_a_room_follows_its_rule_system_until_the_operator_chooses(harbour, admin_client):
    html = admin_client.get(reverse("admin:rooms_room_change", args=[harbour.pk])).content.decode()
    assert "pulp_noir (from the rule system, Call of Cthulhu 7e)" in html
    assert "<option value='victoria'>" in html
    assert genres() == {"pulp_noir": {"worlds": ["harbour"]}}

    done = admin_client.post(
        reverse("admin:rooms_room_genre", args=[harbour.pk]), {"sidequest_genre": "victoria"}
    )
    assert done.status_code == 302
    page = admin_client.get(done.url).content.decode()
    assert "SideQuest clients now see harbour under victoria." in page
    assert "<option value='victoria' selected>" in page
    assert genres() == {"victoria": {"worlds": ["harbour"]}}


def test_a_genre_the_client_does_not_know_is_refused(harbour, admin_client):
    done = admin_client.post(
        reverse("admin:rooms_room_genre", args=[harbour.pk]), {"sidequest_genre": "star_chamber"}
    )
    page = admin_client.get(done.url).content.decode()
    assert "The SideQuest client has no look for the genre star_chamber." in page
    harbour.refresh_from_db()
    assert harbour.sidequest_genre == ""


def test_mint_key_can_set_the_rooms_genre(harbour):
    call_command(
        "mint_key",
        "--room",
        "harbour",
        "--name",
        "Kay",
        "--role",
        "keeper",
        "--sidequest-genre",
        "heavy_metal",
    )
    assert genres() == {"heavy_metal": {"worlds": ["harbour"]}}
    with pytest.raises(CommandError, match="invalid choice: 'star_chamber'"):
        call_command("mint_key", "--room", "harbour", "--name", "Pip", "--sidequest-genre", "star_chamber")
