"""Operator-console operations on rooms and backups (the Django admin's side).

The admin's actions and pages call these; they use the same backup code as the
keepers' admin frames, and tell a room's connected members when its story was reset
or replaced (`state{reset:true}`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from asgiref.sync import async_to_sync

from rooms import backups, hub
from rooms.models import Room


@dataclass(frozen=True)
class BackupFile:
    """One file of the backups folder, as the console lists it."""

    name: str
    size: int
    modified: datetime.datetime


def backup_files() -> list[BackupFile]:
    """Every backup in the folder, newest first."""
    files = []
    for path in backups.backup_dir().glob("*.json"):
        stat = path.stat()
        modified = datetime.datetime.fromtimestamp(stat.st_mtime, tz=datetime.UTC)
        files.append(BackupFile(path.name, stat.st_size, modified))
    return sorted(files, key=lambda f: (f.modified, f.name), reverse=True)


def backup_file(name: str) -> Path:
    """An existing backup by its file name; `BackupError` for anything else (a path,
    `..`, a missing file)."""
    path = backups.backup_path(name, "")
    if path.name != name or not path.is_file():
        raise backups.BackupError("not_found", f"no backup called {name}")
    return path


def tell_room_it_was_reset(room: Room) -> None:
    """Push `state{reset:true}` to the room's members (from a sync view)."""
    async_to_sync(hub.publish_state_refresh)(room.pk, reset=True)


def export(room: Room) -> tuple[Path, backups.RoomCounts]:
    """Write a dated backup of the room."""
    path = backups.backup_path(None, room.name)
    return path, backups.room_export(room, path)


def reset(room: Room, scope: str) -> backups.RoomCounts:
    """Reset the room's story by scope and tell its members."""
    counts = backups.room_reset(room, scope)
    tell_room_it_was_reset(room)
    return counts


def delete_data(room: Room) -> tuple[Path, backups.RoomCounts]:
    """Back the room up, then delete its keys and story (only once the backup exists)."""
    path = backups.backup_path(None, room.name)
    counts = backups.room_delete_data(room, backup=path)
    tell_room_it_was_reset(room)
    return path, counts


def restore(name: str, room_name: str) -> tuple[Room, backups.RoomCounts]:
    """Restore a backup file, into `room_name` when given (all or nothing)."""
    room, counts = backups.room_import(backup_file(name), room_name or None)
    tell_room_it_was_reset(room)
    return room, counts
