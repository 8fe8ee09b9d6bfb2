"""The media half of a room backup: the index rows in the JSON document, the blobs as
members of the backup's archive (`media/<sha256>`), so a restore on a fresh server
brings the pictures and the music back.

Blobs are copied piece by piece between the storage and the archive, never held whole,
and each is checked against its sha256 on the way back in. An export copies the blobs
its document names, after the rows were read and outside any transaction
(`rooms.backups.room_snapshot`): blobs are named by their hash, so they can be read later.
An earlier version kept them in a companion archive beside the document
(`<backup>.media.zip`, members named by hash), which still restores.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import re
import secrets
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction

from media_store.models import AudioLayer, MediaItem, RoomMedia, storage_key
from rooms.backup_archive import Member
from rooms.backups import BackupPart, Restoring, RoomCounts
from rooms.models import Room

PIECE = 1024 * 1024
FOLDER = "media/"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
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


def _stored_blob(room_id: int, sha256: str) -> Member:
    return Member(FOLDER + sha256, lambda: default_storage.open(storage_key(room_id, sha256), "rb"))


@contextlib.contextmanager
def _zipped(archive: Path, name: str) -> Iterator[IO[bytes]]:
    with zipfile.ZipFile(archive) as zipped, zipped.open(name) as member:
        yield member


def _earlier_blob(archive: Path, sha256: str) -> Member:
    return Member(FOLDER + sha256, lambda: _zipped(archive, sha256))


def _hash_of(item: dict) -> str:
    """An item's sha256, checked to be one (it names a member and a stored file)."""
    sha256 = item["sha256"]
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise MediaBackupError(f"{item.get('name')!r} has no valid sha256")
    return sha256


def _restore_blob(source: IO[bytes], values: dict, key: str) -> None:
    """Spool one blob out of the backup, check it, and store it."""
    spool = Path(settings.DATA_DIR) / "uploads"
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=spool) as copy:
        digest, size = hashlib.sha256(), 0
        while size <= values["size"] and (piece := source.read(PIECE)):
            digest.update(piece)
            size += len(piece)
            copy.write(piece)
        if digest.hexdigest() != values["sha256"] or size != values["size"]:
            raise MediaBackupError(f"the backup's copy of {values['name']} does not match its hash")
        copy.seek(0)
        default_storage.save(key, File(copy))


class MediaPart(BackupPart):
    """The media's share of a room backup: the index rows, the audio desk and the
    uploads switch in the document; the blobs in the backup's archive."""

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
        }

    def members(self, room: Room, document: dict) -> list[Member]:
        return [_stored_blob(room.pk, item["sha256"]) for item in document.get("media") or []]

    def earlier_members(self, document: dict, restoring: Restoring) -> list[Member]:
        companion = document.pop("media_archive", None)
        items = document.get("media") or []
        if not items:
            return []
        archive = self._earlier_archive(companion, restoring)
        return [_earlier_blob(archive, _hash_of(item)) for item in items]

    @staticmethod
    def _earlier_archive(companion: object, restoring: Restoring) -> Path:
        archive = restoring.companion(companion)
        if not archive.is_file():
            raise MediaBackupError("the backup's media archive is missing")
        return archive

    def restore(self, room: Room, document: dict, restoring: Restoring) -> RoomCounts:
        """The rows and blobs (each blob checked against its hash); a blob stored here is
        removed again if the restore fails later."""
        items = document.get("media", [])
        earlier = None
        if items and restoring.archive is None:  # an earlier version's document
            earlier = zipfile.ZipFile(self._earlier_archive(document.get("media_archive"), restoring))
        with earlier if earlier is not None else contextlib.nullcontext():
            for entry in items:
                values = {f: entry[f] for f in ITEM_FIELDS}
                sha256 = _hash_of(values)
                key = storage_key(room.pk, sha256)
                if not default_storage.exists(key):
                    with earlier.open(sha256) if earlier else restoring.member(FOLDER + sha256) as source:
                        _restore_blob(source, values, key)
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
