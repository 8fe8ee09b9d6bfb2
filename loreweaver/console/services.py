"""Operator-console operations on rooms and backups (the Django admin's side).

The admin's actions and pages call these; they use the same backup code as the
keepers' admin frames, and tell a room's connected members when its story was reset
or replaced (`state{reset:true}`). The console sees every room's backups.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone

from rooms import backups, services
from rooms.models import Room, RoomBackup

if TYPE_CHECKING:
    from loreweaver.wire import coordination

# The carriers are imported where they are used: the admin loads this module in every
# process, and a management command (`mint_key`, `migrate`) has no use for the table's
# server stack, which costs a fifth of a second to import.


def backup_listing() -> list[RoomBackup]:
    """Every backup of every room (and any file the server cannot place), newest
    first, with its whole size; files the index did not know yet are adopted first."""
    return backups.listing()


def backup_by_id(backup_id: int) -> RoomBackup:
    """An indexed backup whose file exists; `BackupError('not_found')` otherwise."""
    backup = RoomBackup.objects.select_related("room").filter(pk=backup_id).first()
    if backup is None or not backups.backup_file(backup).is_file():
        raise backups.BackupError("not_found", f"no backup #{backup_id}")
    return backup


def online_members(room: Room) -> list[coordination.Member]:
    """Who is online in the room now, on any process."""
    from loreweaver.wire import presence_now

    return presence_now.online_now([room.pk])[room.pk]


# How long a console Disconnect may keep a member out, in minutes (0: they may rejoin
# at once, as their client does by itself).
KEEP_OUT_CHOICES = (0, 10, 60, 24 * 60)


def disconnect(room: Room, member_id: str, *, keep_out_minutes: int = 0) -> None:
    """Close every session of a member in the room, on every process and carrier, and
    refuse their joins for `keep_out_minutes` (the key stays valid: to keep them out for
    good, revoke it)."""
    until = timezone.now() + datetime.timedelta(minutes=keep_out_minutes) if keep_out_minutes else None
    services.member_keep_out(room_id=room.pk, member_id=member_id, until=until)
    from loreweaver.wire import hub

    async_to_sync(hub.publish_disconnect)(room.pk, member_id, keep_out_minutes)


def revoke(room: Room, member_id: str) -> int:
    """Delete the member's keys to the room, which closes their sessions everywhere;
    `LastKeeperError` for the room's last keeper key."""
    return services.member_keys_delete(room_id=room.pk, member_id=member_id)


def export(room: Room) -> tuple[Path, backups.RoomCounts]:
    """Write a dated backup of the room."""
    path = backups.new_backup_path(room)
    return path, backups.room_export(room, path)


def reset(room: Room, scope: str) -> tuple[Path, backups.RoomCounts]:
    """Back the room up, then reset its story by scope and tell its members."""
    safety = backups.safety_backup(room.name, "before-reset")
    assert safety is not None, "the room exists"
    return safety, backups.room_reset(room, scope)


def delete_data(room: Room) -> tuple[Path, backups.RoomCounts]:
    """Back the room up, then delete its keys and story (only once the backup exists)."""
    path = backups.new_backup_path(room)
    return path, backups.room_delete_data(room, backup=path)


def restore(backup: RoomBackup, room_name: str) -> tuple[Room, backups.RoomCounts, Path | None]:
    """Restore a backup, into `room_name` when given (any room: the operator may
    restore one room's backup into another), all or nothing; a room that exists is
    backed up first (that backup is returned, else None)."""
    restored = backups.room_restore(backups.backup_file(backup), room_name or None)
    return restored.room, restored.counts, restored.safety


def delete_room(room: Room, backup: Path) -> None:
    """Delete the room, once `backup` of it is written (`export`): its keys (its members
    are closed), story and settings. The backup stays, unassigned, to restore."""
    backups.room_delete_data(room, backup=None)
    room.delete()


def backup_target(room: Room, label: str) -> str:
    """Where a safety backup of the room will be written, for a confirmation page."""
    return f"{backups.room_folder(room).relative_to(backups.backup_dir().parent)}/{label}-<date>-<time>.zip"


def restore_safety_target(room_name: str) -> str:
    """Where restoring into `room_name` saves that room first (a room to be made by
    the restore has nothing to save: then any room's folder, as a pattern)."""
    room = Room.objects.filter(name=room_name).first()
    if room is None:
        return "room_backups/<room>/before-restore-<date>-<time>.zip"
    return backup_target(room, "before-restore")


def backup_at(path: Path) -> RoomBackup:
    """The index's record of a backup file just written (`export`)."""
    return RoomBackup.objects.get(path=path.relative_to(backups.backup_dir()).as_posix())


def invite_link(request: HttpRequest, key: str) -> str:
    """The browser table's link that joins with `key` (in the fragment, which never
    reaches a server or a referrer, and which the page removes from the address)."""
    return f"{'https' if request.is_secure() else 'http'}://{request.get_host()}/#key={quote(key, safe='')}"


def invitation_context(request: HttpRequest, room: str, name: str, role: str, key: str) -> dict[str, str]:
    """The minted key's page: the invitation to send and the link alone."""
    return {"invite": invitation(request, room, name, role, key), "link": invite_link(request, key)}


def invitation(request: HttpRequest, room: str, name: str, role: str, key: str) -> str:
    """What to send a new member: the link that opens the table in a browser, where the
    table is for other clients (WebSocket, Iroh ticket when this server has one) and
    their key."""
    secure = request.is_secure()
    host = request.get_host()
    lines = [
        f'You are invited to the table "{room}" as {name} ({role}).',
        f"Open in a browser: {invite_link(request, key)}",
        f"WebSocket: {'wss' if secure else 'ws'}://{host}/",
    ]
    from loreweaver.wire.iroh_carrier import TICKET_FILE

    ticket_file = Path(settings.DATA_DIR) / TICKET_FILE
    if ticket_file.is_file():
        lines.append(f"Iroh ticket: {ticket_file.read_text().strip()}")
    lines.append(f"Key: {key}")
    return "\n".join(lines)
