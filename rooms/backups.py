"""Room backups: one archive per backup holding a versioned JSON document and the
files it names (the room's media), written member by member, restorable on this or a
fresh server (docs/decisions.md, "Keys and keeper administration"). Keys travel as
digests, never as keys. An export reads the rows in one short transaction and copies
the blobs afterwards, outside any transaction.

The archive's format is `rooms.backup_archive`; where backups live, their names and
whose each one is (the `RoomBackup` index) are `rooms.backup_index`, whose functions
the callers reach through this module. A keeper names a backup and reaches only their
own room's; the operator console sees every file, and only the operator restores one
room's backup into another room.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import sys
import threading
import zipfile
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar

from django.db import close_old_connections, connection, transaction

from rooms.backup_archive import (
    EARLIER_SUFFIX,
    SUFFIX,
    ArchiveError,
    ArchiveWriter,
    Member,
    composed_chunks,
    file_chunks,
    open_backup,
)
from rooms.backup_index import (
    BackupError,
    adopt_loose_files,
    backup_available,
    backup_delete,
    backup_dir,
    backup_file,
    backup_of,
    bring_in,
    copy_offsite,
    index,
    listing,
    locate,
    new_backup_path,
    room_folder,
    room_named_in,
    whole_size,
)
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry, TurnEvent
from rooms.services import new_frame_id
from rooms.signals import room_story_replaced

log = logging.getLogger(__name__)

# The index's side, named through this module by its callers (the console, the admin
# frames, the keeper's commands, the management commands).
__all__ = [
    "BackupError",
    "adopt_loose_files",
    "backup_available",
    "backup_delete",
    "backup_dir",
    "backup_file",
    "backup_of",
    "bring_in",
    "copy_offsite",
    "listing",
    "locate",
    "new_backup_path",
    "room_folder",
    "room_named_in",
]

FORMAT = "loreweaver-django-room"
VERSION = 1
T = TypeVar("T")


@dataclass(frozen=True)
class RoomCounts:
    """What an operation touched, for `admin_room_op`."""

    keys: int = 0
    store_rows: int = 0
    media_files: int = 0

    def __add__(self, other: RoomCounts) -> RoomCounts:
        return RoomCounts(
            self.keys + other.keys, self.store_rows + other.store_rows, self.media_files + other.media_files
        )


# How much of a room a clear takes, each scope including the ones before it:
# "story" the story and its progress; "chars" also the characters; "all" also the
# module, NPCs and media (what an import replaces); "delete" also keys and settings.
SCOPES = ("story", "chars", "all", "delete")


@dataclass
class Restoring:
    """What a part needs while a backup is restored: the backup file's path, its
    archive (None for an earlier version's `.json` document, whose companion files lie
    beside it), and `undo`, the steps that take back what a failed restore left outside
    the database (stored blobs)."""

    path: Path
    archive: zipfile.ZipFile | None = None
    undo: list[Callable[[], None]] = field(default_factory=list)
    # The restored transcript's new ids, by position in the document (parts that point
    # at transcript lines export positions; the table's part restores first).
    line_ids: dict[int, int] = field(default_factory=dict)

    def member(self, name: str) -> IO[bytes]:
        """One of the archive's members, to read as a stream."""
        if self.archive is None:
            raise BackupError("bad_request", f"{self.path.name} is a document without its archive")
        try:
            return self.archive.open(name)
        except KeyError:
            raise BackupError("bad_request", f"{self.path.name} lacks {name}") from None

    def companion(self, name: object) -> Path:
        """A file an earlier version's document names as its companion, checked to be a
        bare name beside the document (never elsewhere)."""
        if not isinstance(name, str) or Path(name).name != name or name.startswith(".") or "\\" in name:
            raise BackupError("bad_request", f"{self.path.name} names a file outside its folder")
        return self.path.with_name(name)


class BackupPart:
    """One app's share of a room backup: its fields of the document, the files the
    archive carries with it, and how to restore and clear them. Each app registers its part
    when it is ready (`register`); the composer asks every part in turn, in the order
    the apps load, and knows no app's models."""

    # The document's lists that count as stored rows in `admin_room_op`.
    rows: tuple[str, ...] = ()

    def export(self, room: Room, path: Path) -> dict:
        """This part's fields of the document to be written at `path`."""
        return {}

    def members(self, room: Room, document: dict) -> list[Member]:
        """Files the archive carries after the document. Decided from the `document`
        alone, never from the rows as they are by now: they are copied after the rows'
        snapshot, outside any transaction, and are what the document names (blobs are
        content-addressed, so they still are what it says)."""
        return []

    def earlier_members(self, document: dict, restoring: Restoring) -> list[Member]:
        """For a backup an earlier version wrote (a document with files beside it): the
        members an archive of it carries, read from those files; the document's fields
        that named them are removed."""
        return []

    def restore(self, room: Room, document: dict, restoring: Restoring) -> RoomCounts:
        """Bring this part back into `room` (inside the caller's transaction)."""
        return RoomCounts()

    def clear(self, room: Room, scope: str) -> RoomCounts:
        """Delete this part's rows of `room` for `scope` (one of SCOPES): the rows,
        keys and files it deleted."""
        return RoomCounts()


PARTS: list[BackupPart] = []


def register(part: BackupPart) -> None:
    """Add an app's part to every backup, restore and reset (once, when it is ready)."""
    if not any(type(known) is type(part) for known in PARTS):
        PARTS.append(part)


def safety_backup(room_name: str, label: str) -> Path | None:
    """Back up the room called `room_name` before it is overwritten (None when there
    is no such room): `<label>-<time>.zip` in its folder."""
    room = Room.objects.filter(name=room_name).first() if room_name else None
    if room is None:
        return None
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")
    path = new_backup_path(room, f"{label}-{stamp}")
    room_export(room, path)
    return path


def _document(room: Room, path: Path) -> dict:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "room": room.name,
    }
    for part in PARTS:
        document.update(part.export(room, path))
    return document


def _stored_rows(document: dict) -> int:
    return sum(len(document.get(name) or []) for part in PARTS for name in part.rows)


@dataclass(frozen=True)
class RoomSnapshot:
    """A room's rows as of one moment, ready to be written to `path` (`write_snapshot`)."""

    room: Room
    path: Path
    document: dict


@contextlib.contextmanager
def _read_snapshot() -> Iterator[None]:
    """One short transaction that sees a single moment of the database and takes no
    write lock. Inside the caller's transaction (a turn's database visit, where the
    room's turn keeps its rows still) that transaction is the snapshot."""
    if connection.in_atomic_block:
        yield
        return
    if connection.vendor == "sqlite":
        # The server opens SQLite transactions IMMEDIATE (the write lock at once); a
        # deferred one only reads, and in WAL mode sees one snapshot of the file from
        # its first read on while every writer goes on.
        mode, connection.transaction_mode = connection.transaction_mode, "DEFERRED"
        try:
            with transaction.atomic():
                yield
        finally:
            connection.transaction_mode = mode
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # the transaction's first statement
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def room_snapshot(room: Room, path: Path) -> RoomSnapshot:
    """The room's rows as of one moment (every part's fields of the document), read in
    one short transaction: REPEATABLE READ on Postgres, a read-only transaction on
    SQLite. No file is read or written here; the blobs are copied afterwards by
    `write_snapshot`, outside any transaction."""
    with _read_snapshot():
        return RoomSnapshot(room, path, _document(room, path))


def write_snapshot(snapshot: RoomSnapshot) -> RoomCounts:
    """Write a snapshot's backup to its path (inside the backups folder) as one archive,
    atomically (a temporary file, synced, then renamed into place), and index it as the
    room's. Slow (every blob of the room is copied), so it runs outside any transaction
    and, on a server, off the database thread."""
    room, path, document = snapshot.room, snapshot.path, snapshot.document
    members = [member for part in PARTS for member in part.members(room, document)]
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with temporary.open("wb") as sink, ArchiveWriter(sink, durable=True) as archive:
            archive.document(document)
            for member in members:
                archive.add(member)
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise
    index(path, room)
    keys = len(document.get("keys") or [])
    return RoomCounts(
        keys=keys, store_rows=_stored_rows(document), media_files=len(document.get("media") or [])
    )


def room_export(room: Room, path: Path) -> RoomCounts:
    """Write the room's backup to `path`: `room_snapshot`, then `write_snapshot`."""
    return write_snapshot(room_snapshot(room, path))


# A backup thread's CPU priority below the turns' threads (Linux niceness is per
# thread): the blob copy takes what the turns leave over.
BACKGROUND_NICE = 10
# Backups run on a few long-lived threads: each backup takes a connection (hosted: from
# the process's pool, so no Postgres backend starts for it) and gives it back when done.
BACKUP_THREADS = 2


def _background_thread() -> None:
    if sys.platform == "linux":  # elsewhere the id would name a process, not a thread
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


_backup_threads = ThreadPoolExecutor(BACKUP_THREADS, "room-backup", initializer=_background_thread)


def _on_a_backup_thread(work: Callable[[], T]) -> T:
    """Run `work` on a backup thread (lower CPU priority, its own database connection),
    wait for it, and return what it returned or raise what it raised."""

    def run() -> T:
        close_old_connections()  # one the database dropped, or too old, is opened again
        try:
            return work()
        finally:
            close_old_connections()  # hosted: back to the pool (SQLite's stays with the thread)

    return _backup_threads.submit(run).result()


def export_in_worker(
    room_id: int, name: str | None = None, *, path: Path | None = None
) -> tuple[Path, RoomCounts]:
    """Back up the room `room_id` to `path`, or as `name` (None: a dated name), from a
    worker thread (`asyncio.to_thread`), on a backup thread with its own database
    connection: no database thread, and no transaction other rooms' turns share, waits
    for the rows' snapshot or the copy of the blobs."""

    def export() -> tuple[Path, RoomCounts]:
        room = Room.objects.get(pk=room_id)
        target = path or new_backup_path(room, name)
        return target, room_export(room, target)

    return _on_a_backup_thread(export)


@dataclass(frozen=True)
class Restored:
    """A restore done: the room, what came back, and the backup of the room as it was
    before (None when there was no such room), which undoes it."""

    room: Room
    counts: RoomCounts
    safety: Path | None


def room_restore(path: Path, room_name: str | None = None) -> Restored:
    """Every door's restore (a keeper's frame, `.save load`, the console, `manage.py
    restore_room`): first the room as it is, as a backup named `before-restore-<time>`,
    then the backup's room over it (`room_import`). The members are told which backup
    came back and which one undoes it."""
    safety = safety_backup(room_name or room_named_in(path), "before-restore")
    told = {"restored": backup_label(path), "undo": backup_label(safety) if safety else ""}
    room, counts = room_import(path, room_name, told=told)
    return Restored(room, counts, safety)


def backup_label(path: Path) -> str:
    """The name a keeper knows a backup by: its file name without the archive's suffix."""
    return path.name.removesuffix(SUFFIX).removesuffix(EARLIER_SUFFIX)


def room_import(
    path: Path, room_name: str | None = None, *, told: dict[str, str] | None = None
) -> tuple[Room, RoomCounts]:
    """Restore a backup file (an archive, or an earlier version's `.json` document with
    its media archive beside it), into `room_name` if given (remapped), all or nothing.

    The room's story, characters, module and media are replaced by the backup's;
    keys whose digest already exists stay where they are. The archive's members are
    read one at a time, each blob checked against its hash. Members are told once it
    is committed (`room_story_replaced`, with `told`). Every door restores through
    `room_restore`, which backs the room up first.
    """
    try:
        with open_backup(path) as (document, archive):
            return _restore(path, document, archive, room_name, told or {})
    except FileNotFoundError:
        raise BackupError("not_found", f"no backup called {path.name}") from None
    except ArchiveError as exc:
        raise BackupError("bad_request", str(exc)) from None
    except OSError as exc:  # reading the file itself failed
        raise BackupError("bad_request", f"{path.name} cannot be read ({exc})") from None


def _restore(
    path: Path, document: dict, archive: zipfile.ZipFile | None, room_name: str | None, told: dict[str, str]
) -> tuple[Room, RoomCounts]:
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise BackupError("bad_request", f"{path.name} is not a version {VERSION} room backup")
    target = room_name or document.get("room")
    if not isinstance(target, str) or not target:
        raise BackupError("bad_request", "the backup names no room")
    restoring = Restoring(path, archive)
    counts = RoomCounts(store_rows=_stored_rows(document))
    try:
        with transaction.atomic():
            room, _ = Room.objects.get_or_create(name=target)
            _clear(room, "all")  # what it deleted is not what the restore reports
            for part in PARTS:
                counts += part.restore(room, document, restoring)
            room_story_replaced.send(sender=Room, room_id=room.pk, told=told)
    except (KeyError, TypeError, IndexError, ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        for step in restoring.undo:  # nothing of a failed import stays behind
            step()
        if isinstance(exc, BackupError):
            raise
        raise BackupError(
            "bad_request", f"{path.name} is damaged ({exc.__class__.__name__}: {exc})"
        ) from None
    return room, counts


@dataclass(frozen=True)
class Download:
    """A backup as one archive to send: its file name, its size when known beforehand,
    and its bytes a piece at a time (close the iterator to let go of the files)."""

    filename: str
    size: int | None
    chunks: Generator[bytes, None, None]


def download(backup: RoomBackup) -> Download:
    """The backup as one archive: the file itself, or, for an earlier version's
    document and its media archive, an archive composed from them as it is read (never
    whole in memory). `BackupError` when its file cannot be read."""
    path = backup_file(backup)
    if path.suffix != EARLIER_SUFFIX:
        return Download(path.name, whole_size(path), file_chunks(path))
    try:
        with open_backup(path) as (document, _none):
            restoring = Restoring(path)
            members = [member for part in PARTS for member in part.earlier_members(document, restoring)]
    except (OSError, ValueError) as exc:  # not a backup, or its media archive is gone
        raise BackupError("bad_request", f"{path.name} cannot be read whole ({exc})") from None
    return Download(path.stem + SUFFIX, None, composed_chunks(document, members))


def _clear(room: Room, scope: str) -> RoomCounts:
    counts = RoomCounts()
    for part in PARTS:
        counts += part.clear(room, scope)
    return counts


def room_delete_data(room: Room, *, backup: Path | None) -> RoomCounts:
    """Delete the room's keys and data; with a backup path, only after it was written.
    Members are told once it is committed (their keys are gone, so they are closed)."""
    if backup is not None:
        room_export(room, backup)
    with transaction.atomic():
        counts = _clear(room, "delete")
        room_story_replaced.send(sender=Room, room_id=room.pk, told={"deleted": "yes"})
    return counts


def room_reset(room: Room, scope: str) -> RoomCounts:
    """Start the campaign over: `story` clears the story and its progress (the module
    and its NPCs stay); `chars` also the characters; `all` also the module, NPCs and
    media. Keys, settings and connections stay; members are told once it is committed.
    The one reset the console, the keepers' admin frames and `.reset` all use."""
    if scope not in SCOPES[:3]:
        raise BackupError("bad_request", f"a reset's scope is story, chars or all, not {scope!r}")
    with transaction.atomic():
        counts = _clear(room, scope)
        room_story_replaced.send(sender=Room, room_id=room.pk, told={"reset": scope})
    return counts


def keeper_delete_data(
    room_id: int, *, backup: bool, name: str | None = None
) -> tuple[RoomCounts, Path | None]:
    """`room_delete_data` as a keeper asks it of their own room: after a backup (`name`,
    else a dated one) unless `backup` is False; the counts, and the backup's path."""
    room = Room.objects.get(pk=room_id)
    path = new_backup_path(room, name) if backup else None
    return room_delete_data(room, backup=path), path


def keeper_reset(room_id: int, scope: str) -> RoomCounts:
    """`room_reset` of the room with this id."""
    return room_reset(Room.objects.get(pk=room_id), scope)


class TablePart(BackupPart):
    """The table's own share: keys (as digests), the transcript, and the turn events
    anchored to it by position."""

    rows = ("transcript", "turn_events")

    def export(self, room: Room, path: Path) -> dict:
        entries = list(TranscriptEntry.objects.filter(room=room).order_by("id"))
        index = {entry.pk: position for position, entry in enumerate(entries)}
        return {
            "keys": [
                {
                    "digest": k.digest,
                    "member_id": k.member_id,
                    "key_masked": k.key_masked,
                    "name": k.name,
                    "role": k.role,
                    "purpose": k.purpose,
                    "expires_at": k.expires_at.isoformat() if k.expires_at else None,
                    "guest": k.guest,
                }
                for k in AccessKey.objects.filter(room=room).order_by("id")
            ],
            "transcript": [
                {
                    "frame_id": e.frame_id,
                    "speaker": e.speaker,
                    "name": e.name,
                    "member_id": e.member_id,
                    "text": e.text,
                    "format": e.format,
                    "created_at": e.created_at.isoformat(),
                }
                for e in entries
            ],
            "turn_events": [
                {
                    "anchor": index.get(event.anchor_id),
                    "frame": event.frame,
                    "audience": event.audience,
                    "member_id": event.member_id,
                }
                for event in TurnEvent.objects.filter(room=room).order_by("id")
            ],
        }

    def restore(self, room: Room, document: dict, restoring: Restoring) -> RoomCounts:
        keys = 0
        for key in document["keys"]:
            if not AccessKey.objects.filter(digest=key["digest"]).exists():
                AccessKey.objects.create(room=room, **key)
                keys += 1
        entries = []
        for line in document["transcript"]:
            line = dict(line)
            told_at = line.pop("created_at", None)  # an earlier version's backup has no times
            if TranscriptEntry.objects.filter(frame_id=line["frame_id"]).exists():
                line["frame_id"] = new_frame_id()  # the original room still holds this line
            entry = TranscriptEntry.objects.create(room=room, **line)
            if told_at:
                entry.created_at = datetime.datetime.fromisoformat(told_at)
            entries.append(entry)
        # A restored line keeps the time it was told (creating it stamped it now).
        TranscriptEntry.objects.bulk_update(entries, ["created_at"], batch_size=500)
        restoring.line_ids = {position: entry.pk for position, entry in enumerate(entries)}
        for event in document["turn_events"]:
            anchor = entries[event["anchor"]] if event["anchor"] is not None else None
            TurnEvent.objects.create(
                room=room,
                anchor=anchor,
                frame=event["frame"],
                audience=event["audience"],
                member_id=event["member_id"],
            )
        return RoomCounts(keys=keys)

    def clear(self, room: Room, scope: str) -> RoomCounts:
        deleted = sum(model.objects.filter(room=room).delete()[0] for model in (TurnEvent, TranscriptEntry))
        keys = AccessKey.objects.filter(room=room).delete()[0] if scope == "delete" else 0
        return RoomCounts(keys=keys, store_rows=deleted)
