"""The file a room backup is: one zip archive whose first member is the JSON document
(`backup.json`) and whose other members are the files the document names (the room's
media, `media/<sha256>`), so a backup is downloaded, copied and restored as one file.

Written member by member to disk (`ArchiveWriter`), each file copied piece by piece,
never held whole; read the same way (`open_backup`): the document, then each member as
a stream. Blobs are stored, not compressed (pictures and sound are compressed already);
the document is deflated.

An earlier version wrote a backup as a `.json` document with its media in a companion
archive beside it (`<stem>.media.zip`, members named by hash); such a backup still
restores (its document names the companion) and downloads as one archive (see
`rooms.backups.download`).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import zipfile
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from base import failpoints

SUFFIX = ".zip"
DOCUMENT = "backup.json"
# What an earlier version wrote: the document alone, and its media beside it.
EARLIER_SUFFIX = ".json"
EARLIER_COMPANION = ".media.zip"
# A document is rows of text (a long campaign's is a few MiB); a member that says it
# is larger is not read into memory.
DOCUMENT_LIMIT = 256 * 1024 * 1024
PIECE = 1024 * 1024
# Bytes of archive written between syncs (see `ArchiveWriter`). Measured with
# bench/export.py: 8 MiB let another room's roll wait up to 5x as long as without an
# export (its commit queued behind that much unwritten archive), 1 MiB about 1.5x, at
# half the copy speed (100 to 190 MiB/s on the development machine's disk).
SYNC_EVERY = PIECE
_sync_data = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync


class ArchiveError(ValueError):
    """A file that is not a readable room backup."""


@dataclass(frozen=True)
class Member:
    """A file an archive carries after its document: its name in the archive, and how
    to open its bytes for reading."""

    name: str
    open: Callable[[], AbstractContextManager[IO[bytes]]]


def earlier_companion(document_path: Path) -> Path | None:
    """The media archive an earlier version wrote beside a `.json` document (None for
    an archive, which carries its media inside)."""
    if document_path.suffix != EARLIER_SUFFIX:
        return None
    return document_path.with_name(document_path.stem + EARLIER_COMPANION)


class ArchiveWriter:
    """A backup archive written to `sink`, the document first, then one member at a time.

    `durable`: `sink` is a file on disk; it is synced as it grows (`SYNC_EVERY`) and
    once whole, since the rename that puts it in place must not come before its bytes,
    and a megabyte of unwritten pages at a time keeps the commits of every room's turns
    (each waits for the disk) from queueing behind gigabytes of them. Otherwise `sink`
    may be a stream that cannot seek (a download being composed)."""

    def __init__(self, sink: IO[bytes], *, durable: bool) -> None:
        self._sink = sink
        self._durable = durable
        self._unsynced = 0
        self._zip = zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()
            return
        with contextlib.suppress(Exception):  # what was written is being thrown away
            self._zip.close()

    def document(self, document: dict) -> None:
        """Write the JSON document, the archive's first member."""
        info = zipfile.ZipInfo(DOCUMENT, _now())
        info.compress_type = zipfile.ZIP_DEFLATED
        self._zip.writestr(info, json.dumps(document, ensure_ascii=False).encode("utf-8"))

    def add(self, member: Member) -> None:
        """Copy `member` into the archive, piece by piece."""
        for _ in self.add_in_pieces(member):
            pass

    def add_in_pieces(self, member: Member) -> Iterator[int]:
        """Copy `member` into the archive, yielding the size of each piece once written
        (a composer streaming the archive hands the pieces on meanwhile)."""
        info = zipfile.ZipInfo(member.name, _now())
        with member.open() as source, self._zip.open(info, "w", force_zip64=True) as out:
            while piece := source.read(PIECE):
                out.write(piece)
                self._written(len(piece))
                yield len(piece)
        failpoints.hit("export.stream")  # a test holds an export here, between members

    def close(self) -> None:
        """Write the archive's directory (and, when durable, sync it all to disk)."""
        self._zip.close()
        if self._durable:
            self._sink.flush()
            os.fsync(self._sink.fileno())

    def _written(self, size: int) -> None:
        if not self._durable:
            return
        self._unsynced += size
        if self._unsynced >= SYNC_EVERY:
            self._sink.flush()
            _sync_data(self._sink.fileno())
            self._unsynced = 0


def _now() -> tuple[int, int, int, int, int, int]:
    return datetime.datetime.now(datetime.UTC).timetuple()[:6]


@contextlib.contextmanager
def open_backup(path: Path) -> Iterator[tuple[dict, zipfile.ZipFile | None]]:
    """A backup file's document, and its archive to read members from (None for an
    earlier version's `.json` document). `FileNotFoundError` when there is no such
    file; `ArchiveError` when it is not a backup this server reads."""
    if path.suffix == EARLIER_SUFFIX:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ArchiveError(f"{path.name} is not a backup ({exc})") from None
        yield _checked(document, path), None
        return
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
        raise ArchiveError(f"{path.name} is not a backup archive ({exc})") from None
    with archive:
        yield _checked(_read_document(archive, path), path), archive


def _read_document(archive: zipfile.ZipFile, path: Path) -> object:
    try:
        info = archive.getinfo(DOCUMENT)
    except KeyError:
        raise ArchiveError(f"{path.name} holds no {DOCUMENT}: it is not a room backup") from None
    if info.file_size > DOCUMENT_LIMIT:
        raise ArchiveError(f"{path.name}'s document is larger than a backup's ({info.file_size} bytes)")
    try:
        with archive.open(info) as member:
            return json.loads(member.read(DOCUMENT_LIMIT + 1))
    except (zipfile.BadZipFile, UnicodeDecodeError, ValueError, EOFError) as exc:
        raise ArchiveError(f"{path.name}'s document is damaged ({exc})") from None


def _checked(document: object, path: Path) -> dict:
    if not isinstance(document, dict):
        raise ArchiveError(f"{path.name} is not a room backup")
    return document


def read_document(path: Path) -> dict:
    """A backup file's document alone."""
    with open_backup(path) as (document, _archive):
        return document


def file_chunks(path: Path) -> Generator[bytes, None, None]:
    """A file's bytes, a piece at a time (closed when the iteration ends or is closed)."""
    with path.open("rb") as handle:
        while piece := handle.read(PIECE):
            yield piece


class _Pieces:
    """A sink that cannot seek, whose written bytes are taken out as they come."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []

    def write(self, data: bytes) -> int:
        if data:  # a piece handed on is never empty
            self._pieces.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        return None

    def take(self) -> Iterator[bytes]:
        pieces, self._pieces = self._pieces, []
        yield from pieces


def composed_chunks(document: dict, members: list[Member]) -> Generator[bytes, None, None]:
    """An archive of `document` and `members` made as it is read: its bytes a piece at a
    time, never the whole archive in memory (a download of an earlier version's backup)."""
    sink = _Pieces()
    with ArchiveWriter(sink, durable=False) as archive:
        archive.document(document)
        yield from sink.take()
        for member in members:
            for _size in archive.add_in_pieces(member):
                yield from sink.take()
    yield from sink.take()
