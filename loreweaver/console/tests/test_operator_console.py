"""The operator console in the Django admin."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from rooms.keys import key_digest
from rooms.models import AccessKey, TranscriptEntry
from rooms.services import key_mint, room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db


def test_minting_from_the_admin_shows_the_key_once_and_stores_only_its_digest(admin_client):
    room = room_get_or_create(name="ops")
    response = admin_client.post(
        reverse("admin:rooms_accesskey_add"), {"room": room.pk, "name": "Olga", "role": "keeper"}, follow=True
    )
    page = response.content.decode()
    match = re.search(r'<code class="minted-key" id="minted-key">([A-Za-z0-9_-]{24,})</code>', page)
    assert match, page
    key = match.group(1)
    stored = AccessKey.objects.get(name="Olga")
    assert stored.digest == key_digest(key) and stored.role == "keeper"
    again = admin_client.get(reverse("admin:rooms_accesskey_change", args=[stored.pk])).content.decode()
    assert key not in again, "a key is never shown twice"
    listing = admin_client.get(reverse("admin:rooms_accesskey_changelist")).content.decode()
    assert key not in listing and stored.key_masked in listing


def test_minting_into_a_new_room_creates_it(admin_client):
    admin_client.post(
        reverse("admin:rooms_accesskey_add"), {"new_room": "brand-new", "name": "Nia", "role": "player"}
    )
    assert AccessKey.objects.get(name="Nia").room.name == "brand-new"


def test_a_key_can_be_renamed_and_promoted(admin_client):
    minted = key_mint(room="ops", name="Old", role="player")
    admin_client.post(
        reverse("admin:rooms_accesskey_change", args=[minted.access_key.pk]),
        {"name": "New", "role": "keeper"},
    )
    changed = AccessKey.objects.get(pk=minted.access_key.pk)
    assert (changed.name, changed.role) == ("New", "keeper")


def test_the_last_keeper_key_cannot_be_demoted_from_the_admin(admin_client):
    keeper = key_mint(room="guarded", name="Only", role="keeper").access_key
    response = admin_client.post(
        reverse("admin:rooms_accesskey_change", args=[keeper.pk]), {"name": "Only", "role": "player"}
    )
    assert "last keeper key" in response.content.decode()
    assert AccessKey.objects.get(pk=keeper.pk).role == "keeper"


def test_the_last_keeper_key_cannot_be_deleted_from_the_admin(admin_client):
    keeper = key_mint(room="guarded", name="Only", role="keeper").access_key
    response = admin_client.post(
        reverse("admin:rooms_accesskey_delete", args=[keeper.pk]), {"post": "yes"}, follow=True
    )
    assert "last keeper key" in response.content.decode()
    assert AccessKey.objects.filter(pk=keeper.pk).exists()


def test_bulk_deleting_every_keeper_of_a_room_is_refused(admin_client):
    first = key_mint(room="pair", name="A", role="keeper").access_key
    second = key_mint(room="pair", name="B", role="keeper").access_key
    response = admin_client.post(
        reverse("admin:rooms_accesskey_changelist"),
        {"action": "delete_selected", "_selected_action": [first.pk, second.pk], "post": "yes"},
        follow=True,
    )
    page = response.content.decode()
    assert "would lose its last keeper key" in page and "Successfully deleted" not in page
    assert AccessKey.objects.filter(room__name="pair").count() == 2


def test_a_second_keeper_key_makes_deleting_the_first_possible(admin_client):
    first = key_mint(room="pair", name="A", role="keeper").access_key
    key_mint(room="pair", name="B", role="keeper")
    admin_client.post(reverse("admin:rooms_accesskey_delete", args=[first.pk]), {"post": "yes"})
    assert not AccessKey.objects.filter(pk=first.pk).exists()


def test_a_room_page_shows_its_story_read_only(admin_client):
    room = room_get_or_create(name="story")
    transcript_append(room=room, speaker="player", name="Tess", text="I light the lamp.")
    page = admin_client.get(reverse("admin:rooms_room_change", args=[room.pk])).content.decode()
    assert "I light the lamp." in page and "Tess" in page
    assert 'name="_save"' not in page, "rooms are read-only"
    listing = admin_client.get(reverse("admin:rooms_room_changelist")).content.decode()
    assert "story" in listing
    assert TranscriptEntry.objects.count() == 1


def test_the_console_names_itself(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "loreweaver-django · operator console" in page
