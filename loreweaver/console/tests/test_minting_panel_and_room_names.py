"""Minting in the console (docs/operations.md, "The operator console"): the new key is
in a panel with copy buttons, the link that opens the table joined, and a ready
invitation (the link, addresses, ticket, key), never in
a message that travels in the session; new room names are trimmed, in a safe
character set, and never a twin of a room that differs only in capitals."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from rooms.models import AccessKey, Room
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def iroh_ticket(data_dir):
    (data_dir / "iroh-ticket.txt").write_text("endpointabc123\n")


def _mint(admin_client, **fields):
    return admin_client.post(
        reverse("admin:rooms_accesskey_add"), {"name": "Nia", "role": "player", **fields}, follow=True
    )


def test_a_minted_key_comes_in_a_panel_with_an_invitation_to_copy(admin_client):
    room = room_get_or_create(name="ops")
    page = _mint(admin_client, room=room.pk).content.decode()
    key = re.search(r'id="minted-key">([A-Za-z0-9_-]{24,})</code>', page).group(1)
    invite = re.search(r'<pre id="minted-invite">(.*?)</pre>', page, re.S).group(1)
    assert "ws://testserver/" in invite and "Iroh ticket: endpointabc123" in invite
    assert f"Key: {key}" in invite and "ops" in invite
    assert 'data-copy="minted-key"' in page and 'data-copy="minted-invite"' in page
    # The one link a player clicks: the browser table, joined with the key in its fragment.
    link = f"http://testserver/#key={key}"
    assert f"Open in a browser: {link}" in invite
    assert f'<code id="minted-link">{link}</code>' in page and 'data-copy="minted-link"' in page
    assert reverse("admin:rooms_room_change", args=[room.pk]) in page, "dismissed to the room's page"
    assert key not in admin_client.get(reverse("admin:rooms_room_change", args=[room.pk])).content.decode(), (
        "not shown again (no message carries it)"
    )


@pytest.mark.parametrize(
    ("typed", "told"),
    [
        ("bad room/..", "letters, digits, spaces"),
        ("..", "letters, digits, spaces"),
        ("-dash-first", "starts with a letter or digit"),
        ("Demo", "There is already a room called"),
    ],
)
def test_a_bad_new_room_name_is_refused_with_the_reason(admin_client, typed, told):
    room_get_or_create(name="demo")
    page = _mint(admin_client, new_room=typed).content.decode().replace("&#x27;", "'")
    assert told in page
    assert not AccessKey.objects.filter(name="Nia").exists()
    assert list(Room.objects.values_list("name", flat=True)) == ["demo"]


def test_a_new_room_name_is_trimmed_and_may_be_any_script(admin_client):
    _mint(admin_client, new_room="  雾都 Harbour  ")
    assert AccessKey.objects.get(name="Nia").room.name == "雾都 Harbour"
    _mint(admin_client, new_room="雾都 Harbour")  # the same room, exactly named
    assert Room.objects.filter(name="雾都 Harbour").count() == 1
