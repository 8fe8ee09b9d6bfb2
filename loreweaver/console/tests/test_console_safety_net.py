"""The console's safety net (docs/operations.md, "The operator console"): no path
deletes a room without a backup, a reset or a restore over a live room writes a
backup first, the confirmation names who is online and the file to be written, and
the admin log records every export, reset, restore, deletion and backup deletion,
never a refused action as done."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from loreweaver.testing.backups import backup_document
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry
from rooms.services import transcript_append

pytestmark = pytest.mark.django_db


def _logged(room_or_backup) -> list[str]:
    return [
        entry.get_change_message() or str(entry)
        for entry in LogEntry.objects.filter(object_id=room_or_backup.pk)
    ]


def test_no_path_deletes_a_room_without_a_backup(admin_client, act, story_room, data_dir):
    change = admin_client.get(reverse("admin:rooms_room_change", args=[story_room.pk])).content.decode()
    assert reverse("admin:rooms_room_delete", args=[story_room.pk]) not in change, "no raw Delete button"
    listing = admin_client.get(reverse("admin:rooms_room_changelist")).content.decode()
    assert 'value="delete_selected"' not in listing and 'value="delete_room_with_backup"' in listing
    assert (
        admin_client.post(
            reverse("admin:rooms_room_delete", args=[story_room.pk]), {"post": "yes"}
        ).status_code
        == 403
    )

    asked = act("delete_room_with_backup", story_room).content.decode()
    assert "nobody is online" in asked and f"room_backups/{story_room.pk}-mill/mill-" in asked
    assert Room.objects.filter(pk=story_room.pk).exists(), "nothing happens before the confirmation"
    done = act("delete_room_with_backup", story_room, post="yes").content.decode()
    assert not Room.objects.filter(name="mill").exists() and "backed up to mill-" in done
    (backup,) = RoomBackup.objects.all()
    assert (
        backup.room is None
        and backup.room_name == "mill"
        and (data_dir / "room_backups" / backup.path).is_file()
    )
    assert LogEntry.objects.filter(object_repr="mill", action_flag=3).exists(), "the log shows the deletion"


def test_a_reset_writes_a_backup_first_and_the_log_says_so(admin_client, act, story_room, data_dir):
    asked = act("reset_story", story_room).content.decode()
    assert f"room_backups/{story_room.pk}-mill/before-reset-" in asked
    act("reset_story", story_room, post="yes")
    assert not TranscriptEntry.objects.filter(room=story_room).exists()
    (safety,) = (data_dir / "room_backups").glob("*-mill/before-reset-*.zip")
    assert "The wheel turns." in json.dumps(backup_document(safety))
    assert any("Reset the story (after the backup before-reset-" in line for line in _logged(story_room))


def test_restoring_over_a_live_room_saves_it_first_and_is_logged(admin_client, act, story_room, data_dir):
    act("export_backup", story_room)
    assert any("Exported the backup mill-" in line for line in _logged(story_room))
    transcript_append(room=story_room, speaker="player", name="Kay", text="A line after the backup.")
    (backup,) = RoomBackup.objects.filter(room=story_room)
    admin_client.post(reverse("admin:rooms_room_backup_restore", args=[backup.pk]), {"post": "yes"})
    assert list(TranscriptEntry.objects.filter(room=story_room).values_list("text", flat=True)) == [
        "The wheel turns."
    ]
    (safety,) = (data_dir / "room_backups").glob("*-mill/before-restore-*.zip")
    assert "A line after the backup." in json.dumps(backup_document(safety)), "what was written since is kept"
    assert any(
        f"Restored the backup {backup.name}" in line and safety.name in line for line in _logged(story_room)
    )


def test_a_restored_room_without_a_keeper_key_offers_to_mint_one(admin_client, act, story_room):
    act("export_backup", story_room)
    (backup,) = RoomBackup.objects.filter(room=story_room)
    page = admin_client.post(
        reverse("admin:rooms_room_backup_restore", args=[backup.pk]),
        {"post": "yes", "room": "mill copy"},
        follow=True,
    ).content.decode()
    copy = Room.objects.get(name="mill copy")
    assert not AccessKey.objects.filter(room=copy).exists(), "the keys stayed with their own room"
    assert "has no keeper key" in page and f"{reverse('admin:rooms_accesskey_add')}?room={copy.pk}" in page


def test_deleting_a_backup_is_logged(admin_client, act, story_room):
    act("export_backup", story_room)
    (backup,) = RoomBackup.objects.filter(room=story_room)
    admin_client.post(reverse("admin:rooms_room_backup_delete", args=[backup.pk]), {"post": "yes"})
    assert LogEntry.objects.filter(object_repr=backup.path, action_flag=3).exists()


def test_a_refused_bulk_key_deletion_is_not_logged_as_done(admin_client, act, story_room):
    (keeper,) = AccessKey.objects.filter(room=story_room)
    page = admin_client.post(
        reverse("admin:rooms_accesskey_changelist"),
        {"action": "delete_selected", "_selected_action": [keeper.pk], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "would lose its last keeper key" in page and AccessKey.objects.filter(pk=keeper.pk).exists()
    assert not LogEntry.objects.filter(action_flag=3).exists(), "nothing deleted, nothing logged"


def test_key_deletions_are_logged_once_they_happened(admin_client, story_room):
    from rooms.services import key_mint

    bulk = key_mint(room=story_room.name, name="Bulk").access_key
    single = key_mint(room=story_room.name, name="Single").access_key
    admin_client.post(
        reverse("admin:rooms_accesskey_changelist"),
        {"action": "delete_selected", "_selected_action": [bulk.pk], "post": "yes"},
    )
    admin_client.post(reverse("admin:rooms_accesskey_delete", args=[single.pk]), {"post": "yes"})
    assert not AccessKey.objects.filter(pk__in=[bulk.pk, single.pk]).exists()
    logged = set(LogEntry.objects.filter(action_flag=3).values_list("object_id", flat=True))
    assert logged == {str(bulk.pk), str(single.pk)}
