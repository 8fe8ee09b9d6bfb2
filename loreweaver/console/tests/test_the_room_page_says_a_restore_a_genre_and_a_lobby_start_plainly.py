"""The console says plainly what it did and what a room is (docs/operations.md, "The
operator console"): a restore's message keeps the backup file's name as it is (the
admin capitalises a message's first letter, so the name never leads); a room's genre
"from the rule system" names the system it follows (a Call of Cthulhu 7e room is
`pulp_noir`); and whether a player started the room from the SideQuest lobby reads as
yes or no, not as a ✗ beside a sentence that says it was."""

from __future__ import annotations

import pytest
from django.urls import reverse

from keeper.models import TableSettings
from rooms.models import RoomBackup

pytestmark = pytest.mark.django_db

HELP_TEXT = "started by a player from the SideQuest lobby"


def test_a_restore_keeps_the_backup_files_name_as_it_is(admin_client, act, story_room):
    act("export_backup", story_room)
    (backup,) = RoomBackup.objects.filter(room=story_room)
    assert backup.name.startswith("mill-")
    page = admin_client.post(
        reverse("admin:rooms_room_backup_restore", args=[backup.pk]),
        {"post": "yes", "room": "mill copy"},
        follow=True,
    ).content.decode()
    assert f"Restored {backup.name} into room mill copy" in page
    assert backup.name.capitalize() not in page, "the file's name is never capitalised"


def test_the_genre_names_the_rule_system_it_follows(admin_client, story_room):
    page = reverse("admin:rooms_room_change", args=[story_room.pk])
    assert "pulp_noir (from the rule system, Call of Cthulhu 7e)" in admin_client.get(page).content.decode()
    TableSettings.objects.update_or_create(room=story_room, defaults={"system": "dnd5e"})
    html = admin_client.get(page).content.decode()
    assert "low_fantasy (from the rule system, Dungeons &amp; Dragons 5e)" in html


def test_a_lobby_start_reads_as_yes_or_no(admin_client, story_room):
    page = reverse("admin:rooms_room_change", args=[story_room.pk])
    html = admin_client.get(page).content.decode()
    assert "Started from the SideQuest lobby" in html and HELP_TEXT not in html
    assert '<div class="readonly">no</div>' in html
    story_room.started_by_player = True
    story_room.save()
    html = admin_client.get(page).content.decode()
    assert '<div class="readonly">yes: a player made it from the lobby</div>' in html
