"""What a connection is, apart from its handling: the member it speaks for (`Seat`),
the rows it has been shown, what it is replayed at its join, and how a frame is
written out. Shared by the session and the frame
handlers."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import c_make_encoder, encode_basestring

from django.conf import settings
from django.db.utils import InterfaceError, OperationalError

from base import frames
from base.version import PROTOCOL_VERSION, SERVER_NAME, VERSION
from loreweaver.wire import coordination
from media_store import selectors
from rooms.choices import Audience
from rooms.held_keys import HeldKey
from rooms.selectors import Replay

log = logging.getLogger("loreweaver.wire.session")


def is_outage(failure: BaseException | None) -> bool:
    """Whether `failure` means that Redis or the database is unreachable
    (docs/operations.md, "Faults")."""
    if isinstance(failure, OperationalError | InterfaceError):
        return True
    # The Redis client is loaded only where Redis is used; until then none of its
    # errors can have been raised (and the embedded profile's start skips its import).
    errors = sys.modules.get("redis.exceptions")
    return errors is not None and isinstance(failure, errors.ConnectionError | errors.TimeoutError)


def log_stalled(connection_id: str, seat: Seat | None, *, frames: int, owed: int) -> None:
    """Log a client dropped for not reading: who it was and what it was owed."""
    log.warning(
        "connection=%s room=%s member=%s stopped reading with %s frames, %s bytes owed; dropped",
        connection_id,
        seat.room_name if seat else "-",
        seat.member.member_id if seat else "-",
        frames,
        owed,
    )


def queued_bytes(items: Iterable[object]) -> int:
    """The bytes of the frames waiting in a send queue (a replay's frames are wrapped)."""
    total = 0
    for item in items:
        frame = getattr(item, "item", getattr(item, "text", item))
        if isinstance(frame, str | bytes):
            total += len(frame)
    return total


def log_failure(exc: Exception, message: str, *args: object) -> None:
    """Log a failure: a dependency that is away (Redis, the database) in one line, as the
    operator expects during an outage; anything else with its traceback, as a bug."""
    if is_outage(exc):
        log.warning(message + ": %r", *args, exc)
    else:
        log.exception(message, *args, exc_info=exc)


@dataclass(frozen=True)
class Seat:
    """The member a joined connection speaks for, and the access key it joined with."""

    room_id: int
    room_name: str
    member: coordination.Member
    key_id: int

    @property
    def is_keeper(self) -> bool:
        return self.member.role == "keeper"

    def may_see(self, message: dict) -> bool:
        """Whether this seat is shown a room message of the audience it names."""
        if message.get("audience", Audience.EVERYONE) == Audience.EVERYONE:
            return True
        named = message.get("member_id")
        return self.is_keeper or (bool(named) and named == self.member.member_id)

    @classmethod
    def of(cls, access_key: HeldKey) -> Seat:
        """The seat an access key gives (as the key was read)."""
        member = coordination.Member(access_key.member_id, access_key.name, access_key.role)
        return cls(access_key.room_id, access_key.room_name, member, access_key.key_id)

    def welcome(self, locale: str, *, demo: bool, imagegen: bool, offline: bool = False) -> dict:
        """The `welcome` frame of this seat, with the features this member may use;
        `offline_keeper` (an addition) when no model is connected, so a client can say
        the narration is the offline Keeper's rather than an AI's."""
        features = ["media", "audio"]
        if imagegen:
            features.append("imagegen")
        if demo:
            features.append("demo")
        if offline:
            features.append("offline_keeper")
        if self.is_keeper and settings.TRPG_UPDATE_COMMAND and settings.TRPG_ALLOW_REMOTE_UPDATE:
            features.append("update")
        return frames.welcome(
            protocol=PROTOCOL_VERSION,
            features=features,
            room=self.room_name,
            member_id=self.member.member_id,
            name=self.member.name,
            role=self.member.role,
            locale=locale,
            server=SERVER_NAME,
            version=VERSION,
        )


class DeliveredRows:
    """The stored rows (transcript entries, turn events, media) this connection has
    been shown, newest `KEEP`, so that a replay, the live broadcast and a catch-up
    never show one row twice.

    Kept as one small integer per row (kind and id packed), since a server holds one
    of these per connection: a thousand members who played an evening would otherwise
    keep a few hundred megabytes of tuples. `KEEP` is more than a replay shows (the
    last lines with their events, and the media library of most rooms); a row shown
    longer ago than that cannot come back in a replay but a media item, which clients
    keep by its hash.
    """

    KEEP = 512
    _KINDS = {"entry": 0, "event": 1, "media": 2}

    def __init__(self) -> None:
        self._rows: dict[int, None] = {}

    def _packed(self, row: tuple[str, int]) -> int:
        kind, row_id = row
        return row_id * 4 + self._KINDS.get(kind, 3)

    def __contains__(self, row: tuple[str, int]) -> bool:
        return self._packed(row) in self._rows

    def add(self, row: tuple[str, int]) -> None:
        self.first_sight(row)

    def first_sight(self, row: tuple[str, int] | list) -> bool:
        """Whether `row` (kind and id) is new to this connection, which from now on has
        been shown it: one look for a live frame that carries its row."""
        rows, packed = self._rows, self._packed(row)
        if packed in rows:
            return False
        rows[packed] = None
        if len(rows) > self.KEEP:
            del rows[next(iter(rows))]
        return True


# One encoder for every frame: `json.dumps` with these options makes a new encoder, and
# its C twin, at each call, which was half the cost of encoding a small frame. No frame
# refers to itself, so there are no circular references to look for.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
_C_ENCODER = c_make_encoder and c_make_encoder(
    None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True
)


def encode(frame: dict) -> str:
    """Compact JSON, one frame, UTF-8 as-is."""
    if _C_ENCODER is None:  # a Python without the json module's C part
        return _ENCODER.encode(frame)
    return "".join(_C_ENCODER(frame, 0))


def join_replay(seat: Seat, *, answers: bool = False) -> Replay:
    """What `seat` is shown before its state: the story (with the commands' answers to
    the table when `answers`), then the media library."""
    return selectors.join_replay(
        seat.room_id, member_id=seat.member.member_id, is_keeper=seat.is_keeper, answers=answers
    )


def encoded_for(message: dict, locale: str) -> str:
    """A room frame's text for viewers in `locale`, encoded once per process: every
    session of the room here is handed the same message."""
    encoded = message.setdefault("encoded", {})
    text = encoded.get(locale)
    if text is None:
        text = encoded[locale] = encode(frames.for_viewer(message["frame"], locale))
    return text
