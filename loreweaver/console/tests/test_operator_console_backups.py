"""The operator console's room actions and backups page, through the
Django admin views with a logged-in staff user: export, reset (after confirmation),
delete with a backup first, and the backups folder (download, restore, delete)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from keeper.models import Character
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


def test_exporting_writes_a_backup_that_the_backups_page_lists(admin_client, act, story_room, data_dir):
    page = act("export_backup", story_room).content.decode()
    files = list((data_dir / "room_backups").glob("*-mill/mill-*.json"))
    assert len(files) == 1 and files[0].name in page
    listing = admin_client.get(reverse("admin:rooms_room_backups")).content.decode()
    assert files[0].name in listing and "download" in listing


def test_a_reset_asks_for_confirmation_before_it_clears_the_story(admin_client, act, story_room):
    asked = act("reset_chars", story_room).content.decode()
    assert "Are you sure" in asked and "mill" in asked
    assert TranscriptEntry.objects.filter(room=story_room).exists(), "nothing changes before the confirmation"
    act("reset_chars", story_room, post="yes")
    assert not TranscriptEntry.objects.filter(room=story_room).exists()
    assert not Character.objects.filter(room=story_room).exists()
    assert AccessKey.objects.filter(room=story_room).count() == 1, "keys stay"


def test_deleting_data_backs_up_first(admin_client, act, story_room, data_dir):
    assert "Are you sure" in act("delete_data_with_backup", story_room).content.decode()
    assert AccessKey.objects.filter(room=story_room).exists()
    act("delete_data_with_backup", story_room, post="yes")
    assert not AccessKey.objects.filter(room=story_room).exists()
    (backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.json")
    assert json.loads(backup.read_text())["transcript"][0]["text"] == "The wheel turns."


def test_a_backup_downloads_restores_elsewhere_and_is_deleted_after_confirmation(
    admin_client, act, story_room, data_dir
):
    act("export_backup", story_room)
    (backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.json")
    (indexed,) = RoomBackup.objects.filter(room=story_room)
    download = admin_client.get(reverse("admin:rooms_room_backup_download", args=[indexed.pk]))
    assert download["Content-Disposition"].startswith("attachment")
    assert json.loads(b"".join(download.streaming_content))["room"] == "mill"

    restore_url = reverse("admin:rooms_room_backup_restore", args=[indexed.pk])
    assert "mill" in admin_client.get(restore_url).content.decode()
    assert not Room.objects.filter(name="mill-copy").exists(), "the form alone restores nothing"
    admin_client.post(restore_url, {"post": "yes", "room": "mill-copy"})
    copy = Room.objects.get(name="mill-copy")
    assert list(TranscriptEntry.objects.filter(room=copy).values_list("text", flat=True)) == [
        "The wheel turns."
    ]

    delete_url = reverse("admin:rooms_room_backup_delete", args=[indexed.pk])
    assert "cannot be undone" in admin_client.get(delete_url).content.decode()
    assert backup.exists()
    admin_client.post(delete_url, {"post": "yes"})
    assert not backup.exists()
    assert not RoomBackup.objects.filter(pk=indexed.pk).exists()


@pytest.mark.parametrize("name", ["..", "..%2F..%2Fetc%2Fpasswd", ".hidden.json", "missing.json", "999999"])
def test_only_indexed_backups_can_be_reached(admin_client, name):
    response = admin_client.get(f"/admin/rooms/room/backups/{name}/download/", follow=True)
    assert not response.streaming, "no file is served"
    assert response.status_code == 404 or b"doesn\xe2\x80\x99t exist" in response.content


def test_the_console_sees_every_rooms_backups_and_adopts_files_copied_in(
    admin_client, act, story_room, data_dir
):
    other = room_get_or_create(name="harbour")
    act("export_backup", story_room)
    act("export_backup", other)
    (mill_backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.json")
    # A file an earlier version left in the shared folder, and one from elsewhere.
    (data_dir / "room_backups" / "old-mill.json").write_text(mill_backup.read_text())
    foreign = json.loads(mill_backup.read_text()) | {"room": "nowhere"}
    (data_dir / "room_backups" / "foreign.json").write_text(json.dumps(foreign))

    listing = admin_client.get(reverse("admin:rooms_room_backups")).content.decode()
    assert "harbour-" in listing and "mill-" in listing and "old-mill.json" in listing
    assert "foreign.json" in listing and "unassigned" in listing
    adopted = RoomBackup.objects.get(path__endswith="/old-mill.json")
    assert adopted.room == story_room and (mill_backup.parent / "old-mill.json").exists()
    assert RoomBackup.objects.get(path="foreign.json").room is None


def test_the_console_needs_a_staff_login(client):
    response = client.get(reverse("admin:rooms_room_backups"))
    assert response.status_code == 302 and "/login/" in response["Location"]
