"""The restore confirmation says, before anything happens, that the room the backup
goes into is saved first as a safety backup, and where (docs/operations.md, "The
operator console"); and it is."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rooms.models import RoomBackup

pytestmark = pytest.mark.django_db


def test_the_restore_confirmation_names_the_safety_backup_it_writes(admin_client, act, story_room, data_dir):
    act("export_backup", story_room)
    backup = RoomBackup.objects.get(room=story_room)
    restore = reverse("admin:rooms_room_backup_restore", args=[backup.pk])
    asked = admin_client.get(restore).content.decode()
    assert "A safety backup is written first" in asked
    assert "-mill/before-restore-&lt;date&gt;-&lt;time&gt;.zip" in asked
    admin_client.post(restore, {"post": "yes"})
    assert list((data_dir / "room_backups").glob("*-mill/before-restore-*.zip")), "and it is"
