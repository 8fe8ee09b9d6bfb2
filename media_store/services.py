"""The upload and download flow of the media channel, independent of the carrier.

Upload: `offer` checks an offer in the order docs/decisions.md fixes (disabled, rate limit,
mime, size, hash format, duplicate, quota) and answers an upload id bound to its
uploader for ten minutes; an `Upload` then takes the body piece by piece (hashing it
and spooling it to a temporary file, never holding it whole), and `finish` verifies
size and sha256, gates SVG, stores the blob and indexes it. Download: `find` answers
only for a hash that is this room's media.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Sum

from media_store.models import MediaItem, MediaKind, RoomMedia, storage_key
from media_store.svg import BadSvg, check_svg

IMAGE_MIMES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif", "image/svg+xml"})
AUDIO_MIMES = frozenset({"audio/mpeg", "audio/ogg", "audio/wav", "audio/flac", "audio/mp4", "audio/aac"})
UPLOAD_TTL_SECONDS = 600
CHUNK = 64 * 1024
_HASH = re.compile(r"^[0-9a-f]{64}$")


class MediaError(Exception):
    """A refused media request; `code` is the wire's error code."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(detail or code)
        self.code = code


@dataclass(frozen=True)
class Uploader:
    room_id: int
    member_id: str
    name: str


@dataclass(frozen=True)
class StoredFile:
    """A room's stored file as the media channel serves and announces it: a plain value
    read with its row, so that nothing reads the row again on the event loop."""

    id: int
    sha256: str
    size: int
    mime: str
    name: str
    storage_key: str
    frame: dict  # its `media` (image) or `audio_library_item` (audio) frame

    def as_frame(self) -> dict:
        """Its frame, as `MediaItem.as_frame` gives it."""
        return self.frame

    @classmethod
    def of(cls, item: MediaItem) -> StoredFile:
        """The file `item` indexes."""
        return cls(item.id, item.sha256, item.size, item.mime, item.name, item.storage_key, item.as_frame())


@dataclass(frozen=True)
class Accepted:
    """An offer's answer: a fresh upload id, or the stored item when the room has it."""

    upload_id: str = ""
    existing: MediaItem | None = None


def uploads_enabled(room_id: int) -> bool:
    """Whether members of the room may upload (on unless a keeper turned it off)."""
    setting = RoomMedia.objects.filter(room_id=room_id).first()
    return setting is None or setting.uploads_enabled


def set_uploads_enabled(room_id: int, enabled: bool) -> None:
    """The keeper's switch."""
    RoomMedia.objects.update_or_create(room_id=room_id, defaults={"uploads_enabled": enabled})


def kind_of(mime: str) -> str | None:
    """image, audio, or None for a type the server does not take."""
    if mime in IMAGE_MIMES:
        return MediaKind.IMAGE
    if mime in AUDIO_MIMES:
        return MediaKind.AUDIO
    return None


def _limits(kind: str) -> tuple[int, int]:
    if kind == MediaKind.IMAGE:
        return settings.TRPG_MEDIA_IMAGE_MAX, settings.TRPG_MEDIA_IMAGE_ROOM
    return settings.TRPG_MEDIA_AUDIO_MAX, settings.TRPG_MEDIA_AUDIO_ROOM


def _within_rate(uploader: Uploader) -> bool:
    window = int(time.time() // 60)
    key = f"media-rate:{uploader.room_id}:{uploader.member_id}:{window}"
    cache.add(key, 0, 120)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, 120)
        count = 1
    return count <= settings.TRPG_MEDIA_UPLOADS_PER_MINUTE


def offer(
    uploader: Uploader, *, name: str, mime: str, size: int, sha256: str, member_upload: bool = True
) -> Accepted:
    """Check an upload offer (first failure wins) and answer it. Not a `member_upload`
    (a keeper's `.audio import`): the room's upload switch and the per-minute rate, which
    hold members' uploads, do not apply; type, size and quota do."""
    if member_upload and not uploads_enabled(uploader.room_id):
        raise MediaError("media_disabled")
    if member_upload and not _within_rate(uploader):
        raise MediaError("media_rate_limited")
    kind = kind_of(mime)
    if kind is None:
        raise MediaError("media_bad_mime")
    per_file, per_room = _limits(kind)
    if size <= 0 or size > per_file:
        raise MediaError("media_too_large")
    if not _HASH.match(sha256):
        raise MediaError("media_bad_hash")
    existing = MediaItem.objects.filter(room_id=uploader.room_id, sha256=sha256).first()
    if existing is not None:
        return Accepted(existing=existing)
    used = (
        MediaItem.objects.filter(room_id=uploader.room_id, kind=kind).aggregate(total=Sum("size"))["total"]
        or 0
    )
    if used + size > per_room:
        raise MediaError("media_quota_exceeded")
    upload_id = secrets.token_urlsafe(18)
    pending = {
        "room_id": uploader.room_id,
        "member_id": uploader.member_id,
        "uploader": uploader.name,
        "name": name.strip()[:200] or sha256[:12],
        "mime": mime,
        "size": size,
        "sha256": sha256,
        "kind": kind,
    }
    cache.set(f"upload:{upload_id}", pending, UPLOAD_TTL_SECONDS)
    return Accepted(upload_id=upload_id)


def _spool_dir() -> Path:
    folder = Path(settings.DATA_DIR) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Upload:
    """One PUT in progress: the body arrives in pieces and is spooled to disk."""

    def __init__(self, uploader: Uploader, upload_id: str) -> None:
        pending = cache.get(f"upload:{upload_id}") if upload_id else None
        # An id that is unknown, expired, or another member's is refused, and the
        # owner's pending upload stays as it was.
        if (
            not isinstance(pending, dict)
            or pending["room_id"] != uploader.room_id
            or pending["member_id"] != uploader.member_id
        ):
            raise MediaError("media_bad_upload")
        self.upload_id = upload_id
        self.pending = pending
        self.received = 0
        self._hash = hashlib.sha256()
        handle, name = tempfile.mkstemp(dir=_spool_dir(), prefix=".put-")
        self._file = os.fdopen(handle, "wb")
        self._path = Path(name)

    def write(self, piece: bytes | memoryview) -> None:
        """Take the next piece; more bytes than offered is a size mismatch at once."""
        self.received += len(piece)
        if self.received > self.pending["size"]:
            self.discard()
            raise MediaError("media_size_mismatch")
        self._hash.update(piece)
        self._file.write(piece)

    def discard(self) -> None:
        """Drop the spooled body (the upload id stays valid until it expires)."""
        if not self._file.closed:
            self._file.close()
        self._path.unlink(missing_ok=True)

    def finish(self) -> MediaItem:
        """Verify, gate, store and index the body (blocking: call it from a thread)."""
        try:
            self._file.close()
            if self.received != self.pending["size"]:
                raise MediaError("media_size_mismatch")
            if self._hash.hexdigest() != self.pending["sha256"]:
                raise MediaError("media_hash_mismatch")
            if self.pending["mime"] == "image/svg+xml":
                try:
                    check_svg(self._path.read_bytes())
                except BadSvg as refused:
                    raise MediaError("media_bad_svg", str(refused)) from None
            return self._store()
        finally:
            self._path.unlink(missing_ok=True)

    def _store(self) -> MediaItem:
        pending = self.pending
        key = storage_key(pending["room_id"], pending["sha256"])
        if not default_storage.exists(key):
            with self._path.open("rb") as body:
                saved = default_storage.save(key, File(body))
            if saved != key:  # a concurrent upload of the same bytes won the name
                default_storage.delete(saved)
        try:
            with transaction.atomic():
                item = MediaItem.objects.create(
                    room_id=pending["room_id"],
                    sha256=pending["sha256"],
                    kind=pending["kind"],
                    mime=pending["mime"],
                    size=pending["size"],
                    name=pending["name"],
                    uploader_id=pending["member_id"],
                    uploader_name=pending["uploader"],
                    frame_id=secrets.token_hex(8),
                    title=pending["name"] if pending["kind"] == MediaKind.AUDIO else "",
                )
        except IntegrityError:  # the same bytes arrived twice at once: one entry
            item = MediaItem.objects.get(room_id=pending["room_id"], sha256=pending["sha256"])
        cache.delete(f"upload:{self.upload_id}")
        return item


def store_bytes(
    uploader: Uploader, *, name: str, mime: str, data: bytes, member_upload: bool = True
) -> MediaItem:
    """Store bytes the server made itself (a drawn image, a pack's audio) as if
    `uploader` had uploaded them: the same offer checks (limits, quota, rate), the same
    verification and index. Raises `MediaError`."""
    sha256 = hashlib.sha256(data).hexdigest()
    accepted = offer(
        uploader, name=name, mime=mime, size=len(data), sha256=sha256, member_upload=member_upload
    )
    if accepted.existing is not None:
        return accepted.existing
    upload = Upload(uploader, accepted.upload_id)
    try:
        upload.write(data)
    except BaseException:
        upload.discard()
        raise
    return upload.finish()


def find(room_id: int, sha256: str) -> MediaItem:
    """This room's item for a hash; anything else is `media_not_found`."""
    item = MediaItem.objects.filter(room_id=room_id, sha256=sha256).first() if _HASH.match(sha256) else None
    if item is None:
        raise MediaError("media_not_found")
    return item


def find_file(room_id: int, sha256: str) -> StoredFile:
    """`find`, as the file it indexes. Raises `MediaError`."""
    return StoredFile.of(find(room_id, sha256))


def finish_file(upload: Upload) -> StoredFile:
    """`upload.finish()`, as the file it stored (blocking: call it from a thread)."""
    return StoredFile.of(upload.finish())


def read_pieces(item: MediaItem | StoredFile) -> Iterator[bytes]:
    """The stored bytes in pieces of at most 64 KiB (blocking reads)."""
    with default_storage.open(item.storage_key, "rb") as body:
        while piece := body.read(CHUNK):
            yield piece
