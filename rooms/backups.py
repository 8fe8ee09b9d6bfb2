"""Room backups: one versioned JSON document per room, written atomically, restorable
on this or a fresh server (DECISIONS "Keys and admin"). Keys travel as digests, never
as keys; media travels in a companion archive beside the document.

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
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction

from keeper.models import Character, InitiativeEntry, KeeperNote, Npc, Story, TableSettings
from media_store.models import MediaItem
from rooms import backup_media
from rooms.models import AccessKey, Room, RoomBackup, TranscriptEntry, TurnEvent
from rooms.services import new_frame_id

log = logging.getLogger(__name__)

FORMAT = "loreweaver-django-room"
VERSION = 1
# The lists of a backup that count as `store_rows`.
ROW_PARTS = ("transcript", "turn_events", "characters", "initiative", "npcs", "keeper_notes")
# Story fields a backup carries (the usage counters belong to the server's session).
STORY_FIELDS = (
    "module_id",
    "module_title",
    "module_intro",
    "module_truth",
    "progress",
    "scene_name",
    "scene_focus",
    "clock_minutes",
)
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")


class BackupError(ValueError):
    """A backup request that cannot be done; `code` is the admin_error code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True)
class RoomCounts:
    """What an operation touched, for `admin_room_op`."""

    keys: int
    store_rows: int
    media_files: int = 0


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
    """Where an indexed backup's document is on disk."""
    return backup_dir() / backup.path


def _index(path: Path, room: Room | None) -> RoomBackup:
    relative = path.relative_to(backup_dir()).as_posix()
    backup, _ = RoomBackup.objects.update_or_create(
        path=relative,
        defaults={"room": room, "room_name": room.name if room else "", "size": path.stat().st_size},
    )
    return backup


def backup_delete(backup: RoomBackup) -> None:
    """Delete a backup's files and its index row."""
    path = backup_file(backup)
    path.unlink(missing_ok=True)
    backup_media.archive_path(path).unlink(missing_ok=True)
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
                archive = backup_media.archive_path(path)
                if archive.exists():
                    archive.replace(backup_media.archive_path(target))
                path.replace(target)
                path = target
            if path.parent != room_folder(room):
                room = None  # a name clash in the room's folder: the operator sorts it out
        else:
            room = None
        _index(path, room)
        adopted += 1
    return adopted


def _document(room: Room) -> dict:
    table = TableSettings.objects.filter(room=room).first()
    entries = list(TranscriptEntry.objects.filter(room=room).order_by("id"))
    index = {entry.pk: position for position, entry in enumerate(entries)}
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "room": room.name,
        "settings": (
            {
                "system": table.system,
                "house_rule": table.house_rule,
                "language": table.language,
                "skills": table.skills,
            }
            if table
            else {}
        ),
        "keys": [
            {
                "digest": k.digest,
                "member_id": k.member_id,
                "key_masked": k.key_masked,
                "name": k.name,
                "role": k.role,
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
        "characters": [
            {
                "owner": c.owner,
                "name": c.name,
                "system": c.system,
                "attributes": c.attributes,
                "skills": c.skills,
                "resources": c.resources,
                "status_effects": c.status_effects,
                "avatar": c.avatar,
                "active": c.active,
                "pregen": c.pregen,
            }
            for c in Character.objects.filter(room=room).order_by("id")
        ],
        "initiative": [
            {"name": e.name, "value": e.value, "tiebreak": e.tiebreak, "current": e.current}
            for e in InitiativeEntry.objects.filter(room=room)
        ],
        "story": _story_fields(room),
        "npcs": [
            {"name": n.name, "persona": n.persona, "secret": n.secret} for n in Npc.objects.filter(room=room)
        ],
        "keeper_notes": [note.text for note in KeeperNote.objects.filter(room=room).order_by("id")],
        **backup_media.document(room),
    }


def _story_fields(room: Room) -> dict:
    story = Story.objects.filter(room=room).first()
    return {name: getattr(story, name) for name in STORY_FIELDS} if story else {}


def room_export(room: Room, path: Path) -> RoomCounts:
    """Write the room's backup to `path` (inside the backups folder) atomically
    (temporary files, then renames: the media archive first, the document that names
    it last) and index it as the room's."""
    document = _document(room)
    temporaries = [path.with_name(f".{path.name}.tmp")]
    try:
        if document["media"]:
            archive = backup_media.archive_path(path)
            temporaries.append(archive.with_name(f".{archive.name}.tmp"))
            backup_media.write_archive(room, temporaries[1])
            document["media_archive"] = archive.name
        with temporaries[0].open("w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        if document["media"]:
            temporaries[1].replace(backup_media.archive_path(path))
        temporaries[0].replace(path)
    except BaseException:
        for temporary in temporaries:
            with contextlib.suppress(OSError):  # each one, even if another cannot go
                temporary.unlink(missing_ok=True)
        raise
    _index(path, room)
    rows = sum(len(document[part]) for part in ROW_PARTS)
    return RoomCounts(keys=len(document["keys"]), store_rows=rows, media_files=len(document["media"]))


def room_import(path: Path, room_name: str | None = None) -> tuple[Room, RoomCounts]:
    """Restore a backup, into `room_name` if given (remapped), all or nothing.

    The room's story, characters, initiative and settings are replaced by the backup's;
    keys whose digest already exists stay where they are.
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
    archive_name = document.get("media_archive")
    archive = None
    if archive_name:
        if not isinstance(archive_name, str) or not _SAFE_NAME.match(archive_name) or ".." in archive_name:
            raise BackupError("bad_request", f"{path.name} names a media archive outside room_backups")
        archive = path.with_name(archive_name)
    saved_blobs: list[str] = []
    try:
        with transaction.atomic():
            room, _ = Room.objects.get_or_create(name=target)
            _clear(room, keys=False)
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
            for event in document["turn_events"]:
                anchor = entries[event["anchor"]] if event["anchor"] is not None else None
                TurnEvent.objects.create(
                    room=room,
                    anchor=anchor,
                    frame=event["frame"],
                    audience=event["audience"],
                    member_id=event["member_id"],
                )
            for character in document["characters"]:
                Character.objects.create(room=room, **character)
            for entry in document["initiative"]:
                InitiativeEntry.objects.create(room=room, **entry)
            if document["settings"]:
                TableSettings.objects.update_or_create(room=room, defaults=document["settings"])
            story = {k: v for k, v in document.get("story", {}).items() if k in STORY_FIELDS}
            if story:
                Story.objects.update_or_create(room=room, defaults=story)
            for npc in document.get("npcs", []):
                Npc.objects.create(room=room, **npc)
            for text in document.get("keeper_notes", []):
                KeeperNote.objects.create(room=room, text=text)
            media_files = backup_media.restore(room, document, archive, saved_blobs)
    except (KeyError, TypeError, IndexError, ValueError, OSError, zipfile.BadZipFile) as exc:
        for key in saved_blobs:  # nothing of a failed import stays behind
            default_storage.delete(key)
        raise BackupError(
            "bad_request", f"{path.name} is damaged ({exc.__class__.__name__}: {exc})"
        ) from None
    rows = sum(len(document.get(part, [])) for part in ROW_PARTS)
    return room, RoomCounts(keys=keys, store_rows=rows, media_files=media_files)


def _clear(room: Room, *, keys: bool) -> int:
    deleted = backup_media.clear(room)
    for model in (TurnEvent, TranscriptEntry, Character, InitiativeEntry, Npc, KeeperNote, Story):
        deleted += model.objects.filter(room=room).delete()[0]
    if keys:
        AccessKey.objects.filter(room=room).delete()
        TableSettings.objects.filter(room=room).delete()
    return deleted


def room_delete_data(room: Room, *, backup: Path | None) -> RoomCounts:
    """Delete the room's keys and data; with a backup path, only after it was written."""
    if backup is not None:
        room_export(room, backup)
    with transaction.atomic():
        keys = AccessKey.objects.filter(room=room).count()
        files = MediaItem.objects.filter(room=room).count()
        rows = _clear(room, keys=True)
    return RoomCounts(keys=keys, store_rows=rows, media_files=files)


_USAGE_ZERO = dict.fromkeys(Story.USAGE_FIELDS, 0)


def room_reset(room: Room, scope: str) -> RoomCounts:
    """Start the campaign over: `story` clears the story and its progress (the module
    and its NPCs stay); `chars` also the characters; `all` also the module and NPCs.
    Keys, settings and connections stay."""
    with transaction.atomic():
        deleted = 0
        for model in (TurnEvent, TranscriptEntry, InitiativeEntry, KeeperNote):
            deleted += model.objects.filter(room=room).delete()[0]
        if scope in ("chars", "all"):
            deleted += Character.objects.filter(room=room).delete()[0]
        if scope == "all":
            deleted += Npc.objects.filter(room=room).delete()[0]
            deleted += backup_media.clear(room)
            deleted += Story.objects.filter(room=room).delete()[0]
        else:
            Story.objects.filter(room=room).update(
                progress=0, scene_name="", scene_focus="", clock_minutes=None, **_USAGE_ZERO
            )
    return RoomCounts(keys=0, store_rows=deleted)
