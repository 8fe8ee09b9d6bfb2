"""Writes to the table's state, shared by the carriers, the admin and the commands."""

from __future__ import annotations

import datetime
import functools
import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tomli_w
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import DEFAULT_DB_ALIAS, connections, models, transaction
from django.utils import timezone

from base.i18n import Refusal, _
from rooms.guests import guests_revoke
from rooms.keys import is_digest, key_digest, mask_key, member_id_for, new_key
from rooms.models import (
    SIDEQUEST_GENRES,
    AccessKey,
    Audience,
    Purpose,
    Role,
    Room,
    Speaker,
    TranscriptEntry,
    TurnEvent,
)

ROOM_NAME_MAX = 64
NAME_MAX = 64
DIGEST_PREFIX = "sha256:"


class KeyAdminError(Refusal):
    """A key operation that cannot be done; `code` is the admin_error code and
    `message(locale)` says why in the asker's language."""

    def __init__(self, code: str, text: str, **values: object) -> None:
        super().__init__(text, **values)
        self.code = code


class LastKeeperError(KeyAdminError):
    """Deleting or demoting would leave a room (`room`, when known) with no keeper key."""

    def __init__(self, room: str = "") -> None:
        super().__init__(
            "last_keeper", _("This is the room's last keeper key; mint another keeper key first.")
        )
        self.room = room


def _clean_label(value: str, what: str, limit: int) -> str:
    cleaned = " ".join(str(value).split())
    if not cleaned:
        raise KeyAdminError("bad_request", _("The {what} must not be empty."), what=what)
    if len(cleaned) > limit:
        raise KeyAdminError(
            "bad_request", _("The {what} is longer than {limit} characters."), what=what, limit=limit
        )
    return cleaned


def _clean_role(role: str) -> str:
    if role not in Role.values:
        raise KeyAdminError("bad_request", _("Role must be 'player' or 'keeper', not {role!r}."), role=role)
    return role


# A new room's name: letters (any script), digits, spaces and . _ ' - , starting with a
# letter or digit; it travels in keys, URLs and backup folder names.
_ROOM_NAME = re.compile(r"^[^\W_][\w .'-]*$")


def new_room_name(name: str) -> str:
    """`name` as a new room may be called: trimmed, within the length, in the safe
    characters, and not a room that exists under other capitals ("Demo" beside "demo")."""
    cleaned = _clean_label(name, "room name", ROOM_NAME_MAX)
    if not _ROOM_NAME.match(cleaned) or ".." in cleaned:
        raise KeyAdminError(
            "bad_request",
            _(
                "A room name uses letters, digits, spaces and . _ ' - and starts with a letter or "
                "digit; {name!r} does not."
            ),
            name=cleaned,
        )
    twin = Room.objects.filter(name__iexact=cleaned).exclude(name=cleaned).first()
    if twin is not None:
        raise KeyAdminError(
            "bad_request",
            _(
                "There is already a room called {twin!r}; use that name, or one that differs in "
                "more than capitals."
            ),
            twin=twin.name,
        )
    return cleaned


def room_name_to_use(name: str) -> str:
    """The name of the room an operator typed: a room that exists (named exactly), or a
    valid new one (`new_room_name`)."""
    stripped = str(name).strip()
    return stripped if Room.objects.filter(name=stripped).exists() else new_room_name(stripped)


def room_get_or_create(*, name: str) -> Room:
    """The room called `name`, created on first use."""
    room, _ = Room.objects.get_or_create(name=_clean_label(name, "room name", ROOM_NAME_MAX))
    return room


@dataclass(frozen=True)
class MintedKey:
    """A freshly minted key: the only moment its cleartext exists on the server."""

    key: str
    access_key: AccessKey


# How long a key may be given to live: a minute at least, thirty days at most.
EXPIRY_MIN = 60
EXPIRY_MAX = 30 * 24 * 3600


def key_mint(
    *,
    room: str,
    name: str,
    role: str = Role.PLAYER,
    purpose: str = Purpose.JOIN,
    expires_in: int | None = None,
) -> MintedKey:
    """Create a key for `name` in `room`; the cleartext is returned once and never stored.
    `expires_in` (seconds) makes it run out; a `chat_bind` key cannot join a table."""
    role = _clean_role(role)
    name = _clean_label(name, "name", NAME_MAX)
    if purpose not in Purpose.values:
        raise KeyAdminError(
            "bad_request", _("Purpose must be 'join' or 'chat_bind', not {purpose!r}."), purpose=purpose
        )
    if expires_in is not None and not EXPIRY_MIN <= expires_in <= EXPIRY_MAX:
        raise KeyAdminError(
            "bad_request",
            _("A key lives from {least} seconds to {most} days."),
            least=EXPIRY_MIN,
            most=EXPIRY_MAX // 86400,
        )
    expires_at = timezone.now() + datetime.timedelta(seconds=expires_in) if expires_in else None
    with transaction.atomic():
        target = room_get_or_create(name=room)
        key = new_key()
        access_key = AccessKey.objects.create(
            room=target,
            digest=key_digest(key),
            member_id=member_id_for(key),
            key_masked=mask_key(key),
            name=name,
            role=role,
            purpose=purpose,
            expires_at=expires_at,
        )
    return MintedKey(key=key, access_key=access_key)


def key_lookup(key: str, *, now: datetime.datetime | None = None) -> AccessKey | None:
    """The access key a joining client presented, or None if it is unknown, expired, or
    not a key for joining (a `chat_bind` token)."""
    if not key:
        return None
    found = AccessKey.objects.select_related("room").filter(digest=key_digest(key)).first()
    if found is None or found.purpose != Purpose.JOIN or found.expired(now or timezone.now()):
        return None
    return found


def key_holder(key_id: int, *, now: datetime.datetime | None = None) -> AccessKey | None:
    """An access key as it is now, with its room (None once it was deleted or expired)."""
    found = AccessKey.objects.select_related("room").filter(pk=key_id).first()
    return None if found is None or found.expired(now or timezone.now()) else found


@dataclass(frozen=True)
class KeyMember:
    """Who an access key speaks for now: what a turn needs to know about its key (read
    at every turn with the name they roll under, `keeper.characters.key_at_the_table`)."""

    room_id: int
    member_id: str
    name: str
    role: str


def key_update(*, access_key: AccessKey, name: str | None = None, role: str | None = None) -> AccessKey:
    """Rename a key or change its role, refusing to demote the room's last keeper key."""
    with transaction.atomic():
        # Lock the room's keys so two concurrent demotions cannot both pass the guard.
        locked = list(AccessKey.objects.select_for_update().filter(room_id=access_key.room_id))
        current = next(k for k in locked if k.pk == access_key.pk)
        if role is not None:
            role = _clean_role(role)
            if role != Role.KEEPER and current.is_last_keeper():
                raise LastKeeperError()
            current.role = role
        if name is not None:
            current.name = _clean_label(name, "name", NAME_MAX)
        current.save(update_fields=["name", "role"])
    return current


def key_delete(*, access_key: AccessKey) -> None:
    """Delete a key, refusing to delete the room's last keeper key."""
    keys_delete(keys=[access_key])


def keys_delete(*, keys: Iterable[AccessKey]) -> int:
    """Delete these keys, all or none: none when a room would be left without a keeper
    key (`LastKeeperError`, naming the room). The rooms' keys are locked while the rule
    is checked, so two deletions at once cannot both pass it; how many were deleted."""
    doomed = {key.pk for key in keys}
    with transaction.atomic():
        room_ids = set(AccessKey.objects.filter(pk__in=doomed).values_list("room_id", flat=True))
        locked = list(
            AccessKey.objects.select_for_update(of=("self",))
            .filter(room_id__in=room_ids)
            .select_related("room")
        )
        if (room := _room_left_without_a_keeper(locked, doomed)) is not None:
            raise LastKeeperError(room=room)
        guests_revoke([key for key in locked if key.pk in doomed])
        return AccessKey.objects.filter(pk__in=doomed).delete()[0]


def _room_left_without_a_keeper(room_keys: list[AccessKey], doomed: set[int]) -> str | None:
    """The first room (by id) whose keeper keys among `room_keys` are all `doomed`."""
    for room_id in sorted({key.room_id for key in room_keys}):
        in_room = [key for key in room_keys if key.room_id == room_id]
        if any(key.is_keeper for key in in_room if key.pk in doomed) and not any(
            key.is_keeper for key in in_room if key.pk not in doomed
        ):
            return in_room[0].room.name
    return None


def keys_delete_refusal(*, keys: Iterable[AccessKey]) -> str | None:
    """The room that deleting these keys would leave without a keeper key (None: it
    may be done), to refuse before asking (`keys_delete` checks again as it deletes)."""
    doomed = {key.pk for key in keys}
    room_ids = set(AccessKey.objects.filter(pk__in=doomed).values_list("room_id", flat=True))
    room_keys = list(AccessKey.objects.filter(room_id__in=room_ids).select_related("room"))
    return _room_left_without_a_keeper(room_keys, doomed)


def member_keep_out(*, room_id: int, member_id: str, until: datetime.datetime | None) -> int:
    """Refuse the member's joins to the room until `until` (None lets them back at
    once); how many keys that touched."""
    return AccessKey.objects.filter(room_id=room_id, member_id=member_id).update(kept_out_until=until)


def member_keys_delete(*, room_id: int, member_id: str) -> int:
    """Delete the member's keys to the room (their sessions close as the keys go),
    refusing to delete the room's last keeper key; how many were deleted."""
    return keys_delete(keys=AccessKey.objects.filter(room_id=room_id, member_id=member_id))


def room_keys_delete(*, room_id: int) -> int:
    """Delete every key of a room (its members' sessions are closed as the keys go);
    how many there were. The room, its story and its backups stay."""
    return AccessKey.objects.filter(room_id=room_id).delete()[0]


def room_keys(*, room_id: int, now: datetime.datetime | None = None) -> list[AccessKey]:
    """A room's keys that have not expired, by name."""
    live = AccessKey.objects.filter(room_id=room_id).exclude(expires_at__lte=now or timezone.now())
    return list(live.select_related("room").order_by("name", "id"))


def room_key_by_public_id(*, room_id: int, public_id: str) -> AccessKey | None:
    """The room's key with this admin id (the first 16 hex digits of its digest)."""
    if len(public_id) != 16:
        return None
    return AccessKey.objects.filter(room_id=room_id, digest__startswith=public_id).first()


def room_key_update(
    *, room_id: int, public_id: str, name: str | None = None, role: str | None = None
) -> bool:
    """`key_update` of the room's key with this admin id; False when it has none.
    Raises as `key_update` does."""
    access_key = room_key_by_public_id(room_id=room_id, public_id=public_id)
    if access_key is None:
        return False
    key_update(access_key=access_key, name=name, role=role)
    return True


def room_key_delete(*, room_id: int, public_id: str) -> bool:
    """`key_delete` of the room's key with this admin id; False when it has none.
    Raises as `key_delete` does."""
    access_key = room_key_by_public_id(room_id=room_id, public_id=public_id)
    if access_key is None:
        return False
    key_delete(access_key=access_key)
    return True


# --- keys.toml (the reference keystore format) ------------------------------------------


@dataclass
class ImportReport:
    added: int = 0
    skipped: int = 0


def keys_import_toml(path: Path) -> ImportReport:
    """Import a reference `keys.toml` (one `["<key>"]` table with room, name, role).

    Keys already present are left as they are. Tables named `sha256:<digest>` (what
    `keys_export_toml` writes) bring back a key by its digest. The whole file is
    checked before anything is written, so a bad entry imports nothing.
    """
    try:
        document = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyAdminError("bad_request", _("Cannot read {path}: {why}"), path=path, why=exc) from None
    except tomllib.TOMLDecodeError as exc:
        raise KeyAdminError("bad_request", _("{path} is not valid TOML: {why}"), path=path, why=exc) from None

    rows = []
    for position, (table_name, entry) in enumerate(document.items(), start=1):
        # Name an entry by its position, never by its key: the key is a secret.
        where = f"entry {position} of {path}"
        if not isinstance(entry, dict):
            raise KeyAdminError("bad_request", _("{where} is not a table."), where=where)
        room = _clean_label(entry.get("room", ""), f"room of {where}", ROOM_NAME_MAX)
        try:
            role = _clean_role(entry.get("role", Role.PLAYER))
        except KeyAdminError as exc:
            raise KeyAdminError("bad_request", _("{where}: {why}"), where=where, why=exc) from None
        if table_name.startswith(DIGEST_PREFIX):
            digest = table_name[len(DIGEST_PREFIX) :]
            member_id = str(entry.get("member_id", ""))
            masked = str(entry.get("key_masked", "****"))
            if not is_digest(digest) or not member_id.startswith("tui:"):
                raise KeyAdminError(
                    "bad_request", _("{where} needs a sha256 digest and a member_id."), where=where
                )
        elif table_name:
            digest, member_id, masked = (
                key_digest(table_name),
                member_id_for(table_name),
                mask_key(table_name),
            )
        else:
            raise KeyAdminError("bad_request", _("{where} has an empty key."), where=where)
        # As in the reference keystore, a nameless key shows its member id.
        name = _clean_label(entry.get("name") or member_id, f"name of {where}", NAME_MAX)
        rows.append((digest, member_id, masked, room, name, role))

    report = ImportReport()
    with transaction.atomic():
        for digest, member_id, masked, room, name, role in rows:
            if AccessKey.objects.filter(digest=digest).exists():
                report.skipped += 1
                continue
            AccessKey.objects.create(
                room=room_get_or_create(name=room),
                digest=digest,
                member_id=member_id,
                key_masked=masked,
                name=name,
                role=role,
            )
            report.added += 1
    return report


EXPORT_HEADER = """\
# Access keys exported by loreweaver-django.
# These tables are SHA-256 DIGESTS of the keys, not the keys themselves: this file
# cannot be used to join a table, and the reference server cannot read them as keys.
# `manage.py import_keys` on another loreweaver-django server restores the same keys.
"""


def keys_export_toml(path: Path) -> int:
    """Write every key as a digest table in keys.toml layout; returns how many."""
    document = {}
    for access_key in AccessKey.objects.select_related("room").order_by("room__name", "name"):
        document[DIGEST_PREFIX + access_key.digest] = {
            "room": access_key.room.name,
            "name": access_key.name,
            "role": access_key.role,
            "member_id": access_key.member_id,
            "key_masked": access_key.key_masked,
        }
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(EXPORT_HEADER + "\n" + tomli_w.dumps(document), encoding="utf-8")
    temporary.replace(target)
    return len(document)


# --- transcript and turn events ------------------------------------------------------------


def new_frame_id() -> str:
    """A fresh id for a broadcast line; the same line keeps it for every recipient: a
    random UUID's 32 hex digits, as `uuid.uuid4().hex` writes them."""
    # The version and variant bits set by hand: a turn draws two or three ids, and the
    # UUID object cost more than the random bytes.
    drawn = bytearray(os.urandom(16))
    drawn[6] = drawn[6] & 0x0F | 0x40
    drawn[8] = drawn[8] & 0x3F | 0x80
    return drawn.hex()


def transcript_append(
    *,
    room: Room | int,
    speaker: str,
    text: str,
    name: str = "",
    member_id: str = "",
    text_format: str = "plain",
    frame_id: str | None = None,
) -> TranscriptEntry:
    """Store one story line in `room` (the room or its id); committed before it is
    broadcast, so nothing acknowledged is lost."""
    if speaker not in Speaker.values:
        raise ValueError(f"unknown speaker {speaker!r}")
    # One plain statement: every line of play is stored, and the ORM's building of the
    # INSERT cost more than running it.
    row = {
        "room_id": _room_id(room),
        "frame_id": frame_id or new_frame_id(),
        "speaker": speaker,
        "name": name,
        "member_id": member_id,
        "text": text,
        "format": text_format,
        "created_at": timezone.now(),
    }
    db = connections[DEFAULT_DB_ALIAS]  # looked up once, as `turn_events_record` does
    stored = {**row, "created_at": db.ops.adapt_datetimefield_value(row["created_at"])}
    with db.cursor() as cursor:
        cursor.execute(_transcript_insert(), [stored[name] for name in _LINE_FIELDS])
        row["id"] = cursor.fetchone()[0]
    return _as_stored(TranscriptEntry, row)


def _room_id(room: Room | int) -> int:
    # A turn knows only its room's id: a `Room` made for it cost more than its insert.
    return room if isinstance(room, int) else room.pk


def _as_stored(model: type[models.Model], row: dict) -> models.Model:
    """The instance of `model` that the database row `row` (by attribute name, every
    column) loads as. A turn builds two or three: without `Model.__init__` when no
    receiver listens for the model's instances being made, which is cheaper."""
    # The turn's connection is the default one (`connection`).
    if _init_heard(model):
        names = _row_names(model)
        return model.from_db(DEFAULT_DB_ALIAS, names, [row[name] for name in names])
    stored = model.__new__(model)
    stored.__dict__.update({name: row[name] for name in _row_names(model)})
    stored._state = models.base.ModelState()
    stored._state.adding = False
    stored._state.db = DEFAULT_DB_ALIAS
    return stored


@functools.cache
def _init_heard(model: type[models.Model]) -> bool:
    """Whether something listens for `model`'s instances being made (an image field's
    dimensions, say); asked once, after every app connected its receivers."""
    return models.signals.pre_init.has_listeners(model) or models.signals.post_init.has_listeners(model)


@functools.cache
def _row_names(model: type[models.Model]) -> tuple[str, ...]:
    """`model`'s columns by attribute name, in the order Django loads them."""
    return tuple(field.attname for field in model._meta.concrete_fields)


_LINE_FIELDS = ("room_id", "frame_id", "speaker", "name", "member_id", "text", "format", "created_at")


@functools.cache
def _transcript_insert() -> str:
    meta = TranscriptEntry._meta
    column = {field.attname: field.column for field in meta.concrete_fields}
    columns = ", ".join(column[name] for name in _LINE_FIELDS)
    placeholders = ", ".join(["%s"] * len(_LINE_FIELDS))
    return f"INSERT INTO {meta.db_table} ({columns}) VALUES ({placeholders}) RETURNING {meta.pk.column}"


@functools.cache
def _turn_event_insert(rows: int) -> str:
    events, lines = TurnEvent._meta, TranscriptEntry._meta
    columns = [events.get_field(name).column for name in ("room", "anchor", "frame", "audience", "member_id")]
    columns.append(events.get_field("created_at").column)
    latest_line = (
        f"SELECT MAX({lines.pk.column}) FROM {lines.db_table} WHERE {lines.get_field('room').column} = %s"
    )
    row = f"(%s, ({latest_line}), %s, %s, %s, %s)"
    return (
        f"INSERT INTO {events.db_table} ({', '.join(columns)}) "
        f"VALUES {', '.join([row] * rows)} RETURNING {events.pk.column}, {columns[1]}"
    )


def turn_events_record(
    *, room: Room | int, events: list[tuple[dict, str, str]], along: tuple[str, list] | None = None
) -> list[TurnEvent]:
    """Record a turn's dice/npc frames in `room` (the room or its id), each `(frame,
    audience, member_id)`, right after the transcript line they followed live (the
    room's latest, at the time of the insert), in the order given. `along`, `(sql,
    params)`, is one more `INSERT` of the turn whose result nobody reads (its chronicle
    entry): in the same statement on Postgres (a round trip fewer), else right after."""
    if not events:
        assert along is None, "a write along rides with rows"
        return []
    # One plain statement for them all, anchors included: every roll is a turn event, and
    # the ORM's building of the queries cost more than running them.
    frame_field = TurnEvent._meta.get_field("frame")
    room_id = _room_id(room)
    created = timezone.now()
    # The connection itself, looked up once: each use of the proxy is a lookup.
    db = connections[DEFAULT_DB_ALIAS]
    now = db.ops.adapt_datetimefield_value(created)
    values: list[object] = []
    for frame, audience, member_id in events:
        stored = frame_field.get_db_prep_save(frame, db)
        values += [room_id, room_id, stored, audience, member_id, now]
    with db.cursor() as cursor:
        if along is not None and db.vendor == "postgresql":
            # A data-modifying WITH runs once, whatever the statement reads of it.
            sql, params = along
            cursor.execute(f"WITH along AS ({sql}) {_turn_event_insert(len(events))}", [*params, *values])
        else:
            cursor.execute(_turn_event_insert(len(events)), values)
        # Ids are drawn row by row, in the order of the values.
        returned = sorted(cursor.fetchall())
        if along is not None and db.vendor != "postgresql":
            cursor.execute(*along)
    return [
        _as_stored(
            TurnEvent,
            {
                "id": event_id,
                "room_id": room_id,
                "anchor_id": anchor_id,
                "frame": frame,
                "audience": audience,
                "member_id": member_id,
                "created_at": created,
            },
        )
        for (event_id, anchor_id), (frame, audience, member_id) in zip(returned, events, strict=True)
    ]


def turn_event_record(
    *, room: Room | int, frame: dict, audience: str = Audience.EVERYONE, member_id: str = ""
) -> TurnEvent:
    """Record one dice/npc frame right after the transcript line it followed live."""
    return turn_events_record(room=room, events=[(frame, audience, member_id)])[0]


def set_sidequest_genre(room: Room, genre: str) -> None:
    """List `room` under the SideQuest genre `genre` ("" for its rule system's);
    refuses a genre the SideQuest client has no look for."""
    if genre and genre not in SIDEQUEST_GENRES:
        raise Refusal(_("The SideQuest client has no look for the genre {genre}."), genre=genre)
    room.sidequest_genre = genre
    room.save(update_fields=["sidequest_genre"])


NOTICE_MAX = 4000


def room_notice(room: Room, text: str) -> int:
    """Show `text` to every member of `room` now, as a system line (not kept in the
    transcript); how many server processes it reached. The channel layer's contract
    (docs/architecture.md): any Django code can do the same with `group_send`."""
    text = text.strip()[:NOTICE_MAX]
    if not text:
        raise Refusal(_("A notice needs some text."))
    message = {"type": "room.notice", "text": text}
    reached = async_to_sync(get_channel_layer().group_send)(f"room.{room.id}", message)
    return reached if isinstance(reached, int) else 0  # a layer that does not count
