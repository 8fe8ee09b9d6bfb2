"""`manage.py backup_rooms [--room R] [--keep N]`: a backup of every room (or one),
keeping the newest N scheduled backups of each; what a scheduler runs (compose's
`backup` service). A keeper's own backups (`.save`, exports) are never rotated away."""

from __future__ import annotations

import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from loreweaver import metrics
from rooms import backups
from rooms.models import Room, RoomBackup

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
        failed = []
        for target in rooms.order_by("name"):
            stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")
            try:
                path = backups.new_backup_path(target, f"{PREFIX}{stamp}")
                counts = backups.room_export(target, path)
            except (OSError, backups.BackupError) as problem:
                metrics.BACKUP_RUNS.labels("failed").inc()
                failed.append(target.name)
                self.stderr.write(f"{target.name}: the backup failed: {problem}")
                continue
            metrics.BACKUP_RUNS.labels("ok").inc()
            removed = _rotate(target, keep)
            self.stdout.write(
                f"{target.name}: {path.name} ({counts.store_rows} rows, {counts.media_files} files)"
                + (f"; {removed} older scheduled backup(s) removed" if removed else "")
            )
        if failed:
            raise CommandError(f"{len(failed)} room(s) could not be backed up: {', '.join(failed)}")


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
