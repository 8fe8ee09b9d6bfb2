"""Backups kept in the media storage as well, when that is S3 (`MEDIA_STORAGE=s3`).

A backup on the server's own disk is lost with that disk (a container's volume, a
machine). With S3 media storage, each scheduled backup's files are also copied there,
under `room_backups/<room folder>/<file>`, the same relative path as on disk; a backup
whose disk copy is gone is fetched back from there when it is restored, so the console,
a keeper's `.save load` and `manage.py restore_room` work from either place.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage

from rooms.backup_archive import EARLIER_COMPANION, EARLIER_SUFFIX

log = logging.getLogger(__name__)

FOLDER = "room_backups"


def enabled() -> bool:
    """Whether backups are copied to the media storage (it is S3, not this disk)."""
    return settings.MEDIA_STORAGE == "s3"


def _key(relative: str) -> str:
    return f"{FOLDER}/{relative}"


def copy_out(root: Path, files: list[Path]) -> None:
    """Copy a backup's files (each under `root`, the backups folder) to the storage;
    raises when one cannot be written."""
    for path in files:
        key = _key(path.relative_to(root).as_posix())
        if default_storage.exists(key):
            default_storage.delete(key)  # the storage would otherwise pick another name
        with path.open("rb") as handle:
            saved = default_storage.save(key, File(handle))
        if saved != key:
            raise OSError(f"the storage saved {key} as {saved}")


def has(relative: str) -> bool:
    """Whether the storage holds the backup at `relative` (its archive or document)."""
    return enabled() and default_storage.exists(_key(relative))


def _names(relative: str) -> list[str]:
    """A backup's files as storage names: the archive, or an earlier version's document
    and the media archive beside it (the document last, as when written)."""
    if not relative.endswith(EARLIER_SUFFIX):
        return [relative]
    return [relative.removesuffix(EARLIER_SUFFIX) + EARLIER_COMPANION, relative]


def fetch(root: Path, relative: str) -> bool:
    """Bring the backup at `relative` (its archive, or an earlier version's document and
    its media archive) back from the storage into `root`. False when the storage lacks it."""
    if not has(relative):
        return False
    for one in _names(relative):
        key = _key(one)
        if one != relative and not default_storage.exists(key):
            continue  # an earlier version's document without media had no companion
        target = root / one
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.fetch")
        with default_storage.open(key, "rb") as source, temporary.open("wb") as sink:
            for chunk in iter(lambda: source.read(1024 * 1024), b""):
                sink.write(chunk)
        temporary.replace(target)
    log.info("backup %s fetched from the media storage", relative)
    return True


def find(name: str) -> str | None:
    """The relative path of a backup file called `name` in the storage (any room's
    folder), for a server whose disk and index lost it."""
    if not enabled():
        return None
    folders, names = default_storage.listdir(FOLDER)
    if name in names:
        return name
    for folder in sorted(folders):
        if name in default_storage.listdir(_key(folder))[1]:
            return f"{folder}/{name}"
    return None


def delete(relative: str) -> None:
    """Delete the storage's copy of a backup (all its files)."""
    if not enabled():
        return
    for one in _names(relative):
        if default_storage.exists(_key(one)):
            default_storage.delete(_key(one))
