"""Deleting a room's last keeper key is refused before any confirmation page, never
after it: its page offers no Delete and says why, and the list's "Delete selected"
refuses at once (docs/operations.md, "The operator console")."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rooms.models import AccessKey
from rooms.services import key_mint

pytestmark = pytest.mark.django_db


def test_the_last_keeper_keys_page_offers_no_delete_and_says_why(admin_client, story_room):
    kay = AccessKey.objects.get(room=story_room, name="Kay")
    page = admin_client.get(reverse("admin:rooms_accesskey_change", args=[kay.pk])).content.decode()
    assert reverse("admin:rooms_accesskey_delete", args=[kay.pk]) not in page
    assert "Kay holds the last keeper key of room mill" in page


def test_deleting_the_last_keeper_key_from_the_list_is_refused_before_asking(admin_client, story_room):
    kay = AccessKey.objects.get(room=story_room, name="Kay")
    answer = admin_client.post(
        reverse("admin:rooms_accesskey_changelist"),
        {"action": "delete_selected", "_selected_action": [kay.pk]},
        follow=True,
    ).content.decode()
    assert "Are you sure" not in answer and "Yes, I’m sure" not in answer
    assert "Nothing was deleted: room mill would lose its last keeper key" in answer
    assert AccessKey.objects.filter(pk=kay.pk).exists()


def test_a_key_that_is_not_the_last_keeper_is_still_deleted_after_confirmation(admin_client, story_room):
    pat = key_mint(room="mill", name="Pat", role="player").access_key
    listing = reverse("admin:rooms_accesskey_changelist")
    asked = admin_client.post(listing, {"action": "delete_selected", "_selected_action": [pat.pk]})
    assert "Are you sure" in asked.content.decode()
    admin_client.post(listing, {"action": "delete_selected", "_selected_action": [pat.pk], "post": "yes"})
    assert not AccessKey.objects.filter(pk=pat.pk).exists()
