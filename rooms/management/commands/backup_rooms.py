"""`manage.py backup_rooms [--room R] [--keep N]`: a backup of every room (or one),
keeping the newest N scheduled backups of each, copied to the media storage too when
that is S3; what a scheduler runs (compose's `backup` service). A keeper's own backups
(`.save`, exports) are never rotated away. Each run is recorded (`BackupRun`) for
`/readyz` and `/metrics`. Each room is backed up as a keeper's export is: its rows in one
short snapshot transaction, so a room in play is captured as of one moment, then its
blobs copied outside any transaction (`rooms.backups.room_export`)."""

from __future__ import annotations

import contextlib
import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rooms import backups
from rooms.models import BackupRun, Room, RoomBackup

PREFIX = "scheduled-"


class Command(BaseCommand):
    help = "Back up every room (or --room), keeping the newest --keep scheduled backups of each."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--room", help="only this room")
        parser.add_argument("--keep", type=int, default=7, help="scheduled backups kept per room (default 7)")

    def handle(self, *args: object, room: str | None, keep: int, **options: object) -> None:
        if keep < 1:
            raise CommandError("--keep is at least 1.")
        rooms = Room.objects.filter(name=room) if room else Room.objects.all()
        if room and not rooms.exists():
            raise CommandError(f"There is no room called {room!r}.")
        failed: list[str] = []
        done = 0
        try:
            for target in rooms.order_by("name"):
                problem = self._back_up(target, keep)
                if problem:
                    failed.append(f"{target.name}: {problem}")
                    self.stderr.write(f"{target.name}: the backup failed: {problem}")
                else:
                    done += 1
        except Exception as crash:  # the run itself broke (the database went away, say)
            failed.append(f"the run stopped: {crash}")
            raise
        finally:
            with contextlib.suppress(Exception):  # a database that is gone cannot record it
                BackupRun.objects.create(ok=not failed, rooms=done, failures="\n".join(failed))
        if failed:
            raise CommandError(f"{len(failed)} room(s) could not be backed up: {', '.join(failed)}")

    def _back_up(self, target: Room, keep: int) -> str:
        """Back up one room (and copy it to S3 media storage); what failed, or ""."""
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")
        try:
            path = backups.new_backup_path(target, f"{PREFIX}{stamp}")
            counts = backups.room_export(target, path)
        except (OSError, backups.BackupError) as problem:
            return str(problem)
        try:
            copied = backups.copy_offsite(path)
        except Exception as problem:  # kept on this disk, but not where a lost disk is survived
            return f"written to this disk but not copied to the media storage ({problem})"
        removed = _rotate(target, keep)
        self.stdout.write(
            f"{target.name}: {path.name} ({counts.store_rows} rows, {counts.media_files} files)"
            + ("; copied to the media storage" if copied else "")
            + (f"; {removed} older scheduled backup(s) removed" if removed else "")
        )
        return ""


def _rotate(room: Room, keep: int) -> int:
    """Delete the room's scheduled backups beyond the newest `keep`."""
    scheduled = [
        backup
        for backup in RoomBackup.objects.filter(room=room)
        if backup.path.rsplit("/", 1)[-1].startswith(PREFIX)
    ]
    scheduled.sort(key=lambda backup: backup.path, reverse=True)  # the stamp sorts by time
    for old in scheduled[keep:]:
        backups.backup_delete(old)
    return len(scheduled[keep:])
