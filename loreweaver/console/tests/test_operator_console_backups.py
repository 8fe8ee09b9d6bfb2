"""The operator console's room actions and backups page, through the
Django admin views with a logged-in staff user: export, reset (after confirmation),
delete with a backup first, and the backups folder (download, restore, delete)."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import zipfile

import pytest
from django.urls import reverse

from keeper.models import Character
from loreweaver.testing.backups import backup_document
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


def _streamed(response) -> bytes:
    """A streamed answer's body, read as the server reads it (an asynchronous iterator)."""

    async def read() -> bytes:
        return b"".join([piece async for piece in response.streaming_content])

    return asyncio.run(read())


def test_exporting_downloads_a_backup_that_the_backups_page_lists(admin_client, story_room, data_dir):
    answer = admin_client.post(
        reverse("admin:rooms_room_changelist"),
        {"action": "export_backup", "_selected_action": [story_room.pk]},
    )
    files = list((data_dir / "room_backups").glob("*-mill/mill-*.zip"))
    assert len(files) == 1
    # The file itself, not a page: the browser downloads it and stays where it was.
    assert answer.status_code == 200 and answer["Content-Disposition"].startswith("attachment")
    assert files[0].name in answer["Content-Disposition"]
    assert zipfile.is_zipfile(io.BytesIO(_streamed(answer)))
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
    (backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.zip")
    assert backup_document(backup)["transcript"][0]["text"] == "The wheel turns."


def test_a_backup_downloads_restores_elsewhere_and_is_deleted_after_confirmation(
    admin_client, act, story_room, data_dir
):
    act("export_backup", story_room)
    (backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.zip")
    (indexed,) = RoomBackup.objects.filter(room=story_room)
    download = admin_client.get(reverse("admin:rooms_room_backup_download", args=[indexed.pk]))
    assert download["Content-Disposition"].startswith("attachment")
    assert int(download["Content-Length"]) == backup.stat().st_size == indexed.size
    with zipfile.ZipFile(io.BytesIO(_streamed(download))) as archive:
        assert json.loads(archive.read("backup.json"))["room"] == "mill"

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
    (mill_backup,) = (data_dir / "room_backups").glob("*-mill/mill-*.zip")
    # A backup copied in from another server, and one an earlier version wrote of a
    # room this server does not have.
    shutil.copy(mill_backup, data_dir / "room_backups" / "old-mill.zip")
    foreign = backup_document(mill_backup) | {"room": "nowhere"}
    (data_dir / "room_backups" / "foreign.json").write_text(json.dumps(foreign))

    listing = admin_client.get(reverse("admin:rooms_room_backups")).content.decode()
    assert "harbour-" in listing and "mill-" in listing and "old-mill.zip" in listing
    assert "foreign.json" in listing and "unassigned" in listing
    adopted = RoomBackup.objects.get(path__endswith="/old-mill.zip")
    assert adopted.room == story_room and (mill_backup.parent / "old-mill.zip").exists()
    assert RoomBackup.objects.get(path="foreign.json").room is None


def test_the_console_needs_a_staff_login(client):
    response = client.get(reverse("admin:rooms_room_backups"))
    assert response.status_code == 302 and "/login/" in response["Location"]
