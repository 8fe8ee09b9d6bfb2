"""The console's safety net (docs/operations.md, "The operator console"): no path
deletes a room without a backup, a reset or a restore over a live room writes a
backup first, the confirmation names who is online and the file to be written, and
the admin log records every export, reset, restore, deletion and backup deletion,
never a refused action as done."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry
from rooms.services import key_mint, room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db


@pytest.fixture
def mill():
    room = room_get_or_create(name="mill")
    key_mint(room="mill", name="Kay", role="keeper")
    transcript_append(room=room, speaker="player", name="Kay", text="The wheel turns.")
    return room


def _act(admin_client, action: str, room: Room, **extra):
    return admin_client.post(
        reverse("admin:rooms_room_changelist"),
        {"action": action, "_selected_action": [room.pk], **extra},
        follow=True,
    )


def _logged(room_or_backup) -> list[str]:
    return [
        entry.get_change_message() or str(entry)
        for entry in LogEntry.objects.filter(object_id=room_or_backup.pk)
    ]


def test_no_path_deletes_a_room_without_a_backup(admin_client, mill, data_dir):
    change = admin_client.get(reverse("admin:rooms_room_change", args=[mill.pk])).content.decode()
    assert reverse("admin:rooms_room_delete", args=[mill.pk]) not in change, "no raw Delete button"
    listing = admin_client.get(reverse("admin:rooms_room_changelist")).content.decode()
    assert 'value="delete_selected"' not in listing and 'value="delete_room_with_backup"' in listing
    assert (
        admin_client.post(reverse("admin:rooms_room_delete", args=[mill.pk]), {"post": "yes"}).status_code
        == 403
    )

    asked = _act(admin_client, "delete_room_with_backup", mill).content.decode()
    assert "nobody is online" in asked and f"room_backups/{mill.pk}-mill/mill-" in asked
    assert Room.objects.filter(pk=mill.pk).exists(), "nothing happens before the confirmation"
    done = _act(admin_client, "delete_room_with_backup", mill, post="yes").content.decode()
    assert not Room.objects.filter(name="mill").exists() and "backed up to mill-" in done
    (backup,) = RoomBackup.objects.all()
    assert (
        backup.room is None
        and backup.room_name == "mill"
        and (data_dir / "room_backups" / backup.path).is_file()
    )
    assert LogEntry.objects.filter(object_repr="mill", action_flag=3).exists(), "the log shows the deletion"


def test_a_reset_writes_a_backup_first_and_the_log_says_so(admin_client, mill, data_dir):
    asked = _act(admin_client, "reset_story", mill).content.decode()
    assert f"room_backups/{mill.pk}-mill/before-reset-" in asked
    _act(admin_client, "reset_story", mill, post="yes")
    assert not TranscriptEntry.objects.filter(room=mill).exists()
    (safety,) = (data_dir / "room_backups").glob("*-mill/before-reset-*.json")
    assert "The wheel turns." in safety.read_text()
    assert any("Reset the story (after the backup before-reset-" in line for line in _logged(mill))


def test_restoring_over_a_live_room_saves_it_first_and_is_logged(admin_client, mill, data_dir):
    _act(admin_client, "export_backup", mill)
    assert any("Exported the backup mill-" in line for line in _logged(mill))
    transcript_append(room=mill, speaker="player", name="Kay", text="A line after the backup.")
    (backup,) = RoomBackup.objects.filter(room=mill)
    admin_client.post(reverse("admin:rooms_room_backup_restore", args=[backup.pk]), {"post": "yes"})
    assert list(TranscriptEntry.objects.filter(room=mill).values_list("text", flat=True)) == [
        "The wheel turns."
    ]
    (safety,) = (data_dir / "room_backups").glob("*-mill/before-restore-*.json")
    assert "A line after the backup." in safety.read_text(), "what was written since is kept"
    assert any(f"Restored the backup {backup.name}" in line and safety.name in line for line in _logged(mill))


def test_a_restored_room_without_a_keeper_key_offers_to_mint_one(admin_client, mill):
    _act(admin_client, "export_backup", mill)
    (backup,) = RoomBackup.objects.filter(room=mill)
    page = admin_client.post(
        reverse("admin:rooms_room_backup_restore", args=[backup.pk]),
        {"post": "yes", "room": "mill copy"},
        follow=True,
    ).content.decode()
    copy = Room.objects.get(name="mill copy")
    assert not AccessKey.objects.filter(room=copy).exists(), "the keys stayed with their own room"
    assert "has no keeper key" in page and f"{reverse('admin:rooms_accesskey_add')}?room={copy.pk}" in page


def test_deleting_a_backup_is_logged(admin_client, mill):
    _act(admin_client, "export_backup", mill)
    (backup,) = RoomBackup.objects.filter(room=mill)
    admin_client.post(reverse("admin:rooms_room_backup_delete", args=[backup.pk]), {"post": "yes"})
    assert LogEntry.objects.filter(object_repr=backup.path, action_flag=3).exists()


def test_a_refused_bulk_key_deletion_is_not_logged_as_done(admin_client, mill):
    (keeper,) = AccessKey.objects.filter(room=mill)
    page = admin_client.post(
        reverse("admin:rooms_accesskey_changelist"),
        {"action": "delete_selected", "_selected_action": [keeper.pk], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "would lose its last keeper key" in page and AccessKey.objects.filter(pk=keeper.pk).exists()
    assert not LogEntry.objects.filter(action_flag=3).exists(), "nothing deleted, nothing logged"
