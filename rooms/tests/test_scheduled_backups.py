"""`manage.py backup_rooms --keep N`: a backup of every room, the newest N scheduled
ones kept, a keeper's own backups never rotated away (docs/operations.md, "Backups")."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from rooms import backups
from rooms.models import RoomBackup
from rooms.services import room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db


def test_three_runs_keep_two_scheduled_backups_per_room_and_the_keepers_own(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    rooms = [room_get_or_create(name=name) for name in ("harbour", "lighthouse")]
    for room in rooms:
        transcript_append(room=room, speaker="player", name="Pip", member_id="tui:pppppppp", text="A line.")
    own = backups.new_backup_path(rooms[0], "before-the-finale")
    backups.room_export(rooms[0], own)
    for _run in range(3):
        call_command("backup_rooms", "--keep", "2")
    for room in rooms:
        names = sorted(b.path.rsplit("/", 1)[-1] for b in RoomBackup.objects.filter(room=room))
        scheduled = [name for name in names if name.startswith("scheduled-")]
        assert len(scheduled) == 2, names
        assert all((backups.backup_dir() / b.path).is_file() for b in RoomBackup.objects.filter(room=room))
    assert own.is_file(), "a keeper's own backup stays"
    assert len(list(backups.room_folder(rooms[0]).glob("scheduled-*.zip"))) == 2


def test_one_room_and_a_bad_keep_are_told_apart(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    room_get_or_create(name="harbour")
    call_command("backup_rooms", "--room", "harbour", "--keep", "1")
    assert RoomBackup.objects.count() == 1
    with pytest.raises(Exception, match="no room called"):
        call_command("backup_rooms", "--room", "nowhere")
    with pytest.raises(Exception, match="at least 1"):
        call_command("backup_rooms", "--keep", "0")
