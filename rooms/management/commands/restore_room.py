"""`manage.py restore_room BACKUP [--into ROOM]`: restore a room from one of its
backups, found on this server's disk or, when the disk lost it, in the media storage's
copy (S3); or from a backup archive anywhere on this machine (one downloaded from
another server), copied into the backups folder first. Restoring over a room that
exists first writes a safety backup of it."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rooms import backups


class Command(BaseCommand):
    help = (
        "Restore a room from a backup: its name (scheduled-…), its path under room_backups/, "
        "or the path of a backup archive elsewhere on this machine; --into restores it as another room."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "backup", help="the backup's name, <room folder>/<file name>, or the path of a backup archive"
        )
        parser.add_argument("--into", default="", help="the room to restore into (default: the backup's own)")

    def handle(self, *args: object, backup: str, into: str, **options: object) -> None:
        try:
            outside = Path(backup).expanduser()
            if "/" in backup and outside.is_file() and backups.backup_dir() not in outside.resolve().parents:
                backup = backups.bring_in(outside)
                self.stdout.write(f"{outside} is copied into room_backups/ as {backup}.")
            path = backups.locate(backup)
            restored = backups.room_restore(path, into or None)
        except backups.BackupError as refused:
            raise CommandError(str(refused)) from None
        room, counts, safety = restored.room, restored.counts, restored.safety
        if safety is not None:
            self.stdout.write(
                f"The room as it was is saved as {safety.name}; restore it to undo this "
                f"(manage.py restore_room {safety.name})."
            )
        self.stdout.write(
            f"Restored {path.name} into room {room.name!r}: {counts.store_rows} rows, "
            f"{counts.media_files} media files, {counts.keys} keys."
        )
