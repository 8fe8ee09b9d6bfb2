"""The media half of a room backup: the index rows in the JSON document, the blobs in a
companion archive beside it (`<backup>.media.zip`, stored uncompressed), so a restore
on a fresh server brings the pictures and the music back.

Blobs are copied piece by piece between the storage and the archive, never held whole,
and each is checked against its sha256 on the way back in. An export copies the blobs
its document names, after the rows were read and outside any transaction
(`rooms.backups.room_snapshot`): blobs are named by their hash, so they can be read later.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import secrets
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction

from base import failpoints
from media_store.models import AudioLayer, MediaItem, RoomMedia, storage_key
from rooms.backups import BackupPart, Restoring, RoomCounts
from rooms.models import Room

PIECE = 1024 * 1024
# Bytes of archive written between syncs (see `write_archive`). Measured with
# bench/export.py: 8 MiB let another room's roll wait up to 5x as long as without an
# export (its commit queued behind that much unwritten archive), 1 MiB about 1.5x, at
# half the copy speed (100 to 190 MiB/s on the development machine's disk).
SYNC_EVERY = PIECE
_sync_data = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync
ITEM_FIELDS = (
    "sha256",
    "kind",
    "mime",
    "size",
    "name",
    "uploader_id",
    "uploader_name",
    "frame_id",
    "title",
    "license",
    "source",
    "tags",
)
LAYER_FIELDS = (
    "layer",
    "sha256",
    "mime",
    "name",
    "title",
    "playing",
    "volume",
    "loop",
    "started_at",
    "paused_at_position",
)


class MediaBackupError(ValueError):
    """A media archive that does not match its backup."""


def archive_path(backup: Path) -> Path:
    """The companion archive of a backup file."""
    return backup.with_name(backup.stem + ".media.zip")


def write_archive(room_id: int, hashes: list[str], target: Path) -> int:
    """Copy the room's blobs named by `hashes` (the backup document's media, read in
    its snapshot) into a zip at `target` (written by the caller's rename). Reads no row:
    a blob is named by its hash, so it is what the snapshot said whenever it is read,
    and the copy needs no transaction however long it takes.

    The archive is synced to disk as it grows (`SYNC_EVERY`) and once whole: the
    document that names it is renamed into place after it, so it must be durable
    first, and a megabyte of unwritten pages at a time keeps the commits of every room's
    turns (each waits for the disk) from queueing behind gigabytes of them."""
    count, unsynced = 0, 0
    with target.open("wb") as raw:
        with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for sha256 in hashes:
                with (
                    default_storage.open(storage_key(room_id, sha256), "rb") as blob,
                    archive.open(sha256, "w", force_zip64=True) as out,
                ):
                    while piece := blob.read(PIECE):
                        out.write(piece)
                        unsynced += len(piece)
                        if unsynced >= SYNC_EVERY:
                            raw.flush()
                            _sync_data(raw.fileno())
                            unsynced = 0
                count += 1
                failpoints.hit("export.stream")  # a test holds an export here, midway
        raw.flush()
        os.fsync(raw.fileno())
    return count


def _restore_blob(zipped: zipfile.ZipFile, values: dict, key: str) -> None:
    """Spool one blob out of the archive, check it, and store it."""
    spool = Path(settings.DATA_DIR) / "uploads"
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=spool) as copy:
        digest, size = hashlib.sha256(), 0
        with zipped.open(values["sha256"]) as member:
            while piece := member.read(PIECE):
                digest.update(piece)
                size += len(piece)
                copy.write(piece)
        if digest.hexdigest() != values["sha256"] or size != values["size"]:
            raise MediaBackupError(f"the archive's copy of {values['name']} does not match its hash")
        copy.seek(0)
        default_storage.save(key, File(copy))


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class MediaPart(BackupPart):
    """The media's share of a room backup: the index rows, the audio desk and the
    uploads switch in the document; the blobs in the companion archive."""

    def export(self, room: Room, path: Path) -> dict:
        settings_row = RoomMedia.objects.filter(room=room).first()
        items = [
            {**{f: getattr(i, f) for f in ITEM_FIELDS}, "created_at": i.created_at.isoformat()}
            for i in MediaItem.objects.filter(room=room).order_by("id")
        ]
        return {
            "media": items,
            "audio_layers": [
                {f: getattr(a, f) for f in LAYER_FIELDS} for a in AudioLayer.objects.filter(room=room)
            ],
            "uploads_enabled": settings_row.uploads_enabled if settings_row else True,
            **({"media_archive": archive_path(path).name} if items else {}),
        }

    def companions(self, room: Room, document: dict, path: Path) -> list[tuple[Path, Callable[[Path], None]]]:
        hashes = [item["sha256"] for item in document.get("media") or []]
        if not hashes:
            return []
        return [(archive_path(path), lambda temporary: write_archive(room.pk, hashes, temporary))]

    def restore(self, room: Room, document: dict, restoring: Restoring) -> RoomCounts:
        """The rows and blobs (each blob checked against its hash); a blob stored here is
        removed again if the restore fails later."""
        items = document.get("media", [])
        archive = restoring.companion(document.get("media_archive")) if items else None
        if items and (archive is None or not archive.is_file()):
            raise MediaBackupError("the backup's media archive is missing")
        with zipfile.ZipFile(archive) if archive is not None else _Nothing() as zipped:
            for entry in items:
                values = {f: entry[f] for f in ITEM_FIELDS}
                key = storage_key(room.pk, values["sha256"])
                if not default_storage.exists(key):
                    _restore_blob(zipped, values, key)
                    restoring.undo.append(lambda key=key: default_storage.delete(key))
                if MediaItem.objects.filter(frame_id=values["frame_id"]).exists():
                    values["frame_id"] = secrets.token_hex(8)  # the original room still holds it
                item = MediaItem.objects.create(room=room, **values)
                if entry.get("created_at"):  # the history keeps its original times
                    created = datetime.datetime.fromisoformat(entry["created_at"])
                    MediaItem.objects.filter(pk=item.pk).update(created_at=created)
        for layer in document.get("audio_layers", []):
            AudioLayer.objects.create(room=room, **{f: layer[f] for f in LAYER_FIELDS})
        if not document.get("uploads_enabled", True):
            RoomMedia.objects.update_or_create(room=room, defaults={"uploads_enabled": False})
        return RoomCounts(media_files=len(items))

    def clear(self, room: Room, scope: str) -> RoomCounts:
        """With the module (`all`, `delete`): the rows now, the blobs once the
        transaction commits (unless the same transaction put the file back, as an
        import into the room does)."""
        if scope not in ("all", "delete"):
            return RoomCounts()
        hashes = list(MediaItem.objects.filter(room=room).values_list("sha256", flat=True))
        deleted = sum(
            model.objects.filter(room=room).delete()[0] for model in (MediaItem, AudioLayer, RoomMedia)
        )

        def remove_blobs() -> None:
            for sha256 in hashes:
                if not MediaItem.objects.filter(room=room, sha256=sha256).exists():
                    default_storage.delete(storage_key(room.pk, sha256))

        transaction.on_commit(remove_blobs)
        return RoomCounts(store_rows=deleted, media_files=len(hashes))
