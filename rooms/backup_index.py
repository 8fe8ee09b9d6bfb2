"""Where room backups live, what they are called, and whose each one is.

Each room's backups live in a folder of their own under `<data_dir>/room_backups/`,
and the database index (`RoomBackup`) says whose each file is: a keeper names a
backup by its name and reaches only their own room's; the operator console sees every
file. A backup's name is its file name without the suffix (`session-1` is
`session-1.zip`, or `session-1.json` for an earlier version's backup): a client may give
either form, a name never leaves the room's folder, and a name a room already has is
never written over.
"""

from __future__ import annotations

import datetime
import logging
import re
import shutil
from pathlib import Path

from django.conf import settings

from rooms import offsite
from rooms.backup_archive import EARLIER_COMPANION, EARLIER_SUFFIX, SUFFIX, ArchiveError, read_document
from rooms.models import Room, RoomBackup

log = logging.getLogger(__name__)

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")
_SUFFIXES = (SUFFIX, EARLIER_SUFFIX)


class BackupError(ValueError):
    """A backup request that cannot be done; `code` is the admin_error code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


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


def _stem(name: str) -> str:
    """A client-supplied backup name without its suffix: an absolute path, a separator
    or `..` is refused, so nothing is ever read or written outside a room's folder."""
    if not _SAFE_NAME.match(name) or ".." in name:
        raise BackupError("bad_request", "a backup name is a plain file name (letters, digits, . _ -)")
    stem = next((name.removesuffix(suffix) for suffix in _SUFFIXES if name.endswith(suffix)), name)
    if not stem or stem.endswith(EARLIER_COMPANION.removesuffix(SUFFIX)):
        # `<stem>.media.zip` is an earlier version's media archive, beside its document.
        raise BackupError("bad_request", "a backup name may not end in .media")
    return stem


def _candidates(name: str) -> list[str]:
    """The file names a backup called `name` may have: the name as given first."""
    stem = _stem(name)
    files = [stem + suffix for suffix in _SUFFIXES]
    return sorted(files, key=lambda file: file != name)


def new_backup_path(room: Room, name: str | None = None) -> Path:
    """Where a new backup of `room` goes: the archive `name` (refused if the room already
    has a backup called that, in either form), or a fresh dated name."""
    folder = room_folder(room)
    if name:
        stem = _stem(name)
        taken = _taken(folder, stem)
        if taken:
            raise BackupError(
                "bad_request", f"this room already has a backup called {taken}; choose another name"
            )
        return folder / f"{stem}{SUFFIX}"
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    base = f"{folder.name.split('-', 1)[1]}-{stamp}"
    stem, copy = base, 1
    while _taken(folder, stem):
        copy += 1
        stem = f"{base}-{copy}"
    return folder / f"{stem}{SUFFIX}"


def _taken(folder: Path, stem: str) -> str:
    """The file name a backup called `stem` already has in `folder`, on this disk or
    only in the index (its copy in the media storage), or ""."""
    for file_name in (stem + suffix for suffix in _SUFFIXES):
        relative = (folder / file_name).relative_to(backup_dir()).as_posix()
        if (folder / file_name).exists() or RoomBackup.objects.filter(path=relative).exists():
            return file_name
    return ""


def _indexed_in_room(room_id: int, name: str) -> RoomBackup | None:
    for file_name in _candidates(name):
        found = RoomBackup.objects.filter(room_id=room_id, path__endswith="/" + file_name).first()
        if found is not None:
            return found
    return None


def backup_of(room_id: int, name: str) -> RoomBackup:
    """The backup of this room called `name`; `not_found` for any other room's (the
    names of other rooms' backups do not exist for a keeper)."""
    found = _indexed_in_room(room_id, name)
    if found is None and adopt_loose_files():  # a file the operator just copied in
        found = _indexed_in_room(room_id, name)
    if found is None or not backup_file(found).is_file():
        raise BackupError("not_found", f"this room has no backup called {name}")
    return found


def backup_file(backup: RoomBackup) -> Path:
    """Where an indexed backup's file is on disk (fetched back from the media
    storage's copy first when only that one is left)."""
    path = backup_dir() / backup.path
    if not path.is_file():
        offsite.fetch(backup_dir(), backup.path)
    return path


def backup_available(backup: RoomBackup) -> bool:
    """Whether an indexed backup can be read, from this disk or the storage's copy."""
    return (backup_dir() / backup.path).is_file() or offsite.has(backup.path)


def locate(name: str) -> Path:
    """The file of the backup called `name` (its name, its file name, or its path under
    the backups folder), on this disk or fetched from the storage's copy; `not_found`
    when neither place has it."""
    relative = name.strip().strip("/")
    if ".." in relative.split("/") or relative.startswith("~"):
        raise BackupError("bad_request", "a backup is named by its file name or its path under room_backups/")
    adopt_loose_files()
    folder, _, file_name = relative.rpartition("/")
    candidates = [f"{folder}/{one}" if folder else one for one in _candidates(file_name)]
    for candidate in candidates:
        indexed = RoomBackup.objects.filter(path=candidate).first()
        if indexed is None and not folder:
            indexed = RoomBackup.objects.filter(path__endswith="/" + candidate).first()
        if indexed is not None and backup_available(indexed):
            return backup_file(indexed)
    for candidate in candidates:
        found = offsite.find(candidate) if not folder else candidate
        if found is not None and offsite.fetch(backup_dir(), found):
            adopt_loose_files()
            return backup_dir() / found
    raise BackupError("not_found", f"there is no backup called {name} here or in the media storage")


def bring_in(source: Path) -> str:
    """Copy a backup file from elsewhere on this machine (one downloaded from another
    server, say) into the backups folder, where it is adopted: its name there. A name
    the folder or the index already has is refused, never written over."""
    name = source.name
    _stem(name)
    if source.suffix == EARLIER_SUFFIX:
        raise BackupError("bad_request", "put an earlier version's .json and .media.zip in room_backups/")
    target = backup_dir() / name
    if target.exists() or RoomBackup.objects.filter(path__endswith="/" + name).exists():
        raise BackupError("bad_request", f"there is a backup called {name} here already; rename the file")
    temporary = target.with_name(f".{name}.copy")
    try:
        shutil.copyfile(source, temporary)
        temporary.replace(target)
    finally:
        temporary.unlink(missing_ok=True)
    adopt_loose_files()
    return name


def room_named_in(path: Path) -> str:
    """The room a backup file says it is of ("" when it names none)."""
    try:
        named = read_document(path).get("room")
    except (OSError, ArchiveError):
        return ""
    return named if isinstance(named, str) else ""


def backup_files(path: Path) -> list[Path]:
    """A backup's files on disk: the archive, or an earlier version's document and the
    media archive beside it."""
    companion = path.with_name(path.stem + EARLIER_COMPANION) if path.suffix == EARLIER_SUFFIX else None
    return [path, *([companion] if companion is not None and companion.is_file() else [])]


def whole_size(path: Path) -> int:
    """The bytes of a backup on disk: its archive, or an earlier version's document and
    its media archive together."""
    return sum(one.stat().st_size for one in backup_files(path))


def index(path: Path, room: Room | None) -> RoomBackup:
    """Index a backup file (under the backups folder) as `room`'s (None: unassigned)."""
    relative = path.relative_to(backup_dir()).as_posix()
    backup, _ = RoomBackup.objects.update_or_create(
        path=relative,
        defaults={"room": room, "room_name": room.name if room else "", "size": whole_size(path)},
    )
    return backup


def listing(room_id: int | None = None) -> list[RoomBackup]:
    """The backups that can be read (of one room, or every room's and the unassigned
    ones), newest first, each with its whole size: the one list the console and the
    keeper screens show. Files the index did not know yet are adopted first."""
    adopt_loose_files()
    indexed = RoomBackup.objects.select_related("room")
    if room_id is not None:
        indexed = indexed.filter(room_id=room_id)
    found = []
    for backup in indexed:
        path = backup_dir() / backup.path
        if path.is_file():
            size = whole_size(path)
            if size != backup.size:  # indexed by an earlier version: the document alone
                backup.size = size
                backup.save(update_fields=["size"])
        elif not offsite.has(backup.path):
            continue
        found.append(backup)
    return found


def backup_delete(backup: RoomBackup) -> None:
    """Delete a backup's files (on this disk and in the storage) and its index row."""
    for one in reversed(backup_files(backup_dir() / backup.path)):
        one.unlink(missing_ok=True)
    offsite.delete(backup.path)
    backup.delete()


def copy_offsite(path: Path) -> bool:
    """Copy a backup's files to the media storage when that is S3 (False: it is not)."""
    if not offsite.enabled():
        return False
    offsite.copy_out(backup_dir(), list(reversed(backup_files(path))))  # the document last
    return True


def _loose_files(root: Path, known: set[str]) -> list[Path]:
    """Backup files under `root` the index does not know (an earlier version's media
    archives, which belong to their documents, are not backups of their own)."""
    found = []
    for path in sorted([*root.rglob("*" + SUFFIX), *root.rglob("*" + EARLIER_SUFFIX)]):
        if path.relative_to(root).as_posix() in known or path.name.startswith("."):
            continue
        if path.name.endswith(EARLIER_COMPANION):
            continue
        found.append(path)
    return found


def adopt_loose_files() -> int:
    """Index the backup files the index does not know yet (written by an earlier
    version into the shared folder, or copied in by the operator). A file that names
    a room of this server goes into that room's folder and is its room's; any other
    stays where it is, the operator's alone. Returns how many were adopted."""
    root = backup_dir()
    known = set(RoomBackup.objects.values_list("path", flat=True))
    adopted = 0
    for path in _loose_files(root, known):
        try:
            named = read_document(path).get("room")
        except (OSError, ArchiveError):
            log.warning("backup %s is not readable; left out of the index", path.name)
            continue
        room = Room.objects.filter(name=named).first() if isinstance(named, str) else None
        if room is not None and path.parent in (root, room_folder(room)):
            target = room_folder(room) / path.name
            if target != path and not target.exists():
                for one in reversed(backup_files(path)):  # the document (or archive) last
                    one.replace(target.with_name(one.name))
                path = target
            if path.parent != room_folder(room):
                room = None  # a name clash in the room's folder: the operator sorts it out
        else:
            room = None
        index(path, room)
        adopted += 1
    return adopted
