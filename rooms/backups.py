"""Room backups: one versioned JSON document per room, written atomically, restorable
on this or a fresh server (docs/decisions.md, "Keys and keeper administration"). Keys travel as digests, never
as keys; media travels in a companion archive beside the document. An export reads the
rows in one short transaction and copies the blobs afterwards, outside any transaction.

Each room's backups live in a folder of their own under `<data_dir>/room_backups/`,
and the database index (`RoomBackup`) says whose each file is: a keeper names a
backup by its file name and reaches only their own room's; the operator console sees
every file, and only the operator restores one room's backup into another room.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import os
import re
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.db import close_old_connections, connection, transaction

from rooms import offsite
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry, TurnEvent
from rooms.services import new_frame_id
from rooms.signals import room_story_replaced

log = logging.getLogger(__name__)

FORMAT = "loreweaver-django-room"
VERSION = 1
T = TypeVar("T")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


class BackupError(ValueError):
    """A backup request that cannot be done; `code` is the admin_error code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


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
    """What a part needs while a backup is restored: the document's own path (its
    companion files lie beside it), and `undo`, the steps that take back what a
    failed restore left outside the database (stored blobs)."""

    path: Path
    undo: list[Callable[[], None]] = field(default_factory=list)
    # The restored transcript's new ids, by position in the document (parts that point
    # at transcript lines export positions; the table's part restores first).
    line_ids: dict[int, int] = field(default_factory=dict)

    def companion(self, name: object) -> Path:
        """A file the document names as its companion, checked to be a bare name
        beside the document (never elsewhere)."""
        if not isinstance(name, str) or not _SAFE_NAME.match(name) or ".." in name:
            raise BackupError("bad_request", f"{self.path.name} names a file outside its folder")
        return self.path.with_name(name)


class BackupPart:
    """One app's share of a room backup: its fields of the document, the files that
    travel beside it, and how to restore and clear them. Each app registers its part
    when it is ready (`register`); the composer asks every part in turn, in the order
    the apps load, and knows no app's models."""

    # The document's lists that count as stored rows in `admin_room_op`.
    rows: tuple[str, ...] = ()

    def export(self, room: Room, path: Path) -> dict:
        """This part's fields of the document to be written at `path`."""
        return {}

    def companions(self, room: Room, document: dict, path: Path) -> list[tuple[Path, Callable[[Path], None]]]:
        """Files that go beside the document: (where, a writer given a temporary path).
        Decided from the `document` alone, never from the rows as they are by now: the
        writers run after the rows' snapshot, outside any transaction, and write what
        the document names (blobs are content-addressed, so they still are what it says)."""
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


def backup_dir() -> Path:
    """Where backups live (created on first use)."""
    folder = Path(settings.DATA_DIR) / "room_backups"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def room_folder(room: Room) -> Path:
    """The folder of one room's backups (created on first use)."""
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", room.name)[:40] or "room"
    folder = backup_dir() / f"{room.pk}-{slug}"
    folder.mkdir(exist_ok=True)
    return folder


def _file_name(name: str) -> str:
    """A client-supplied backup name as a bare file name: an absolute path, a separator
    or `..` is refused, so nothing is ever read or written outside a room's folder."""
    if not _SAFE_NAME.match(name) or ".." in name:
        raise BackupError("bad_request", "a backup name is a plain file name (letters, digits, . _ -)")
    return name if name.endswith(".json") else name + ".json"


def new_backup_path(room: Room, name: str | None = None) -> Path:
    """Where a new backup of `room` goes: the file `name` (refused if the room already
    has a backup called that), or a fresh dated name."""
    folder = room_folder(room)
    if name:
        path = folder / _file_name(name)
        if path.exists():
            raise BackupError(
                "bad_request", f"this room already has a backup called {path.name}; choose another name"
            )
        return path
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    stem = f"{folder.name.split('-', 1)[1]}-{stamp}"
    path, copy = folder / f"{stem}.json", 1
    while path.exists():
        copy += 1
        path = folder / f"{stem}-{copy}.json"
    return path


def backup_of(room_id: int, name: str) -> RoomBackup:
    """The backup of this room called `name`; `not_found` for any other room's (the
    names of other rooms' backups do not exist for a keeper)."""
    file_name = _file_name(name)
    found = RoomBackup.objects.filter(room_id=room_id, path__endswith="/" + file_name).first()
    if found is None and adopt_loose_files():  # a file the operator just copied in
        found = RoomBackup.objects.filter(room_id=room_id, path__endswith="/" + file_name).first()
    if found is None or not backup_file(found).is_file():
        raise BackupError("not_found", f"this room has no backup called {file_name}")
    return found


def backup_file(backup: RoomBackup) -> Path:
    """Where an indexed backup's document is on disk (fetched back from the media
    storage's copy first when only that one is left)."""
    path = backup_dir() / backup.path
    if not path.is_file():
        offsite.fetch(backup_dir(), backup.path)
    return path


def backup_available(backup: RoomBackup) -> bool:
    """Whether an indexed backup can be read, from this disk or the storage's copy."""
    return (backup_dir() / backup.path).is_file() or offsite.has(backup.path)


def locate(name: str) -> Path:
    """The document of the backup called `name` (a file name, or its path under the
    backups folder), on this disk or fetched from the storage's copy; `not_found`
    when neither place has it."""
    relative = name.strip().strip("/")
    if ".." in relative.split("/") or relative.startswith("~"):
        raise BackupError("bad_request", "a backup is named by its file name or its path under room_backups/")
    adopt_loose_files()
    indexed = RoomBackup.objects.filter(path=relative).first()
    if indexed is None and "/" not in relative:
        indexed = RoomBackup.objects.filter(path__endswith="/" + _file_name(relative)).first()
    if indexed is not None and backup_available(indexed):
        return backup_file(indexed)
    found = offsite.find(relative.rsplit("/", 1)[-1]) if "/" not in relative else relative
    if found is not None and offsite.fetch(backup_dir(), found):
        adopt_loose_files()
        return backup_dir() / found
    raise BackupError("not_found", f"there is no backup called {name} here or in the media storage")


def copy_offsite(path: Path) -> bool:
    """Copy a backup's files to the media storage when that is S3 (False: it is not)."""
    if not offsite.enabled():
        return False
    offsite.copy_out(backup_dir(), [*_companion_files(path), path])
    return True


def room_named_in(path: Path) -> str:
    """The room a backup document says it is of ("" when it names none)."""
    try:
        named = json.loads(path.read_text(encoding="utf-8")).get("room")
    except (OSError, ValueError, AttributeError):
        return ""
    return named if isinstance(named, str) else ""


def safety_backup(room_name: str, label: str) -> Path | None:
    """Back up the room called `room_name` before it is overwritten (None when there
    is no such room): `<label>-<time>.json` in its folder."""
    room = Room.objects.filter(name=room_name).first() if room_name else None
    if room is None:
        return None
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S-%f")
    path = new_backup_path(room, f"{label}-{stamp}")
    room_export(room, path)
    return path


def _index(path: Path, room: Room | None) -> RoomBackup:
    relative = path.relative_to(backup_dir()).as_posix()
    backup, _ = RoomBackup.objects.update_or_create(
        path=relative,
        defaults={"room": room, "room_name": room.name if room else "", "size": path.stat().st_size},
    )
    return backup


def _companion_files(path: Path) -> list[Path]:
    """The files beside a backup document that belong to it (`<stem>.<what>.<ext>`)."""
    return [p for p in path.parent.glob(f"{glob_escape(path.stem)}.*") if p != path and p.is_file()]


def glob_escape(text: str) -> str:
    """`text` with the glob pattern characters escaped."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def backup_delete(backup: RoomBackup) -> None:
    """Delete a backup's files (the document and its companions) and its index row."""
    path = backup_dir() / backup.path
    for companion in _companion_files(path):
        companion.unlink(missing_ok=True)
    path.unlink(missing_ok=True)
    offsite.delete(backup.path)
    backup.delete()


def adopt_loose_files() -> int:
    """Index the backup files the index does not know yet (written by an earlier
    version into the shared folder, or copied in by the operator). A file that names
    a room of this server goes into that room's folder and is its room's; any other
    stays where it is, the operator's alone. Returns how many were adopted."""
    root = backup_dir()
    known = set(RoomBackup.objects.values_list("path", flat=True))
    adopted = 0
    for path in sorted(root.rglob("*.json")):
        if path.relative_to(root).as_posix() in known or path.name.startswith("."):
            continue
        try:
            named = json.loads(path.read_text(encoding="utf-8")).get("room")
        except (OSError, ValueError, AttributeError):
            log.warning("backup %s is not readable; left out of the index", path.name)
            continue
        room = Room.objects.filter(name=named).first() if isinstance(named, str) else None
        if room is not None and path.parent in (root, room_folder(room)):
            target = room_folder(room) / path.name
            if target != path and not target.exists():
                for companion in _companion_files(path):
                    companion.replace(target.with_name(companion.name.replace(path.stem, target.stem, 1)))
                path.replace(target)
                path = target
            if path.parent != room_folder(room):
                room = None  # a name clash in the room's folder: the operator sorts it out
        else:
            room = None
        _index(path, room)
        adopted += 1
    return adopted


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
    """Write a snapshot's backup to its path (inside the backups folder) atomically
    (temporary files, then renames: the companion files first, the document that names
    them last) and index it as the room's. Slow (every blob of the room is copied), so
    it runs outside any transaction and, on a server, off the database thread."""
    room, path, document = snapshot.room, snapshot.path, snapshot.document
    companions = [item for part in PARTS for item in part.companions(room, document, path)]
    temporaries = [path.with_name(f".{path.name}.tmp")]
    temporaries += [target.with_name(f".{target.name}.tmp") for target, _write in companions]
    try:
        for (_target, write), temporary in zip(companions, temporaries[1:], strict=True):
            write(temporary)
        with temporaries[0].open("w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        for (target, _write), temporary in zip(companions, temporaries[1:], strict=True):
            temporary.replace(target)
        temporaries[0].replace(path)
    except BaseException:
        for temporary in temporaries:
            with contextlib.suppress(OSError):  # each one, even if another cannot go
                temporary.unlink(missing_ok=True)
        raise
    _index(path, room)
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


def room_import(path: Path, room_name: str | None = None) -> tuple[Room, RoomCounts]:
    """Restore a backup, into `room_name` if given (remapped), all or nothing.

    The room's story, characters, module and media are replaced by the backup's;
    keys whose digest already exists stay where they are. Members are told once it
    is committed (`room_story_replaced`).
    """
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupError("not_found", f"no backup called {path.name}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BackupError("bad_request", f"{path.name} is not a backup ({exc})") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or document.get("version") != VERSION
    ):
        raise BackupError("bad_request", f"{path.name} is not a version {VERSION} room backup")
    target = room_name or document.get("room")
    if not isinstance(target, str) or not target:
        raise BackupError("bad_request", "the backup names no room")
    restoring = Restoring(path)
    counts = RoomCounts(store_rows=_stored_rows(document))
    try:
        with transaction.atomic():
            room, _ = Room.objects.get_or_create(name=target)
            _clear(room, "all")  # what it deleted is not what the restore reports
            for part in PARTS:
                counts += part.restore(room, document, restoring)
            room_story_replaced.send(sender=Room, room_id=room.pk)
    except (KeyError, TypeError, IndexError, ValueError, OSError, zipfile.BadZipFile) as exc:
        for step in restoring.undo:  # nothing of a failed import stays behind
            step()
        if isinstance(exc, BackupError):
            raise
        raise BackupError(
            "bad_request", f"{path.name} is damaged ({exc.__class__.__name__}: {exc})"
        ) from None
    return room, counts


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
        room_story_replaced.send(sender=Room, room_id=room.pk)
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
        room_story_replaced.send(sender=Room, room_id=room.pk)
    return counts


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
            frame_id = line["frame_id"]
            if TranscriptEntry.objects.filter(frame_id=frame_id).exists():
                frame_id = new_frame_id()  # the original room still holds this line
            entries.append(TranscriptEntry.objects.create(room=room, **{**line, "frame_id": frame_id}))
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
