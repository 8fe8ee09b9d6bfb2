"""SessionCore: one per connection, the same for both carriers.

A carrier (WebSocket consumer, Iroh connection) knows framing only. It hands every
text frame to `receive_text`, every binary message to `receive_binary`, and tells
the session when the connection is gone. The session does the rest: the join
handshake, replay, the input pipeline, and writing frames back through a bounded
queue so a client that stops reading is disconnected instead of growing memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

import redis.exceptions
from channels.db import database_sync_to_async
from django.conf import settings
from django.db.utils import InterfaceError, OperationalError

from keeper.frames import for_viewer
from keeper.kp.sample import demo_offered
from keeper.state import RoomRead, Viewer, build_state
from loreweaver import failpoints
from loreweaver.version import PROTOCOL_VERSION, SERVER_NAME, VERSION
from media_store.services import MediaError, Uploader, set_avatar, set_uploads_enabled
from media_store.services import offer as media_offer
from rooms import admin_frames, coordination, hub, keystore, media_channel, selectors, self_update, services
from rooms.models import AccessKey, Audience, Room
from rooms.protocol import inbound
from rooms.protocol.messages import error_message, notice
from rooms.turns import TurnContext, run_input

log = logging.getLogger(__name__)

LOCALES = ("en", "zh")
_CLOSE = object()
# The longest control frame parsed, on either carrier (Iroh's line guard is the same).
TEXT_FRAME_LIMIT = 1024 * 1024
# The longest message anyone may send before a join is accepted: a join is a few
# hundred bytes, and nobody unauthenticated may make the server hold more.
PRE_JOIN_LIMIT = 64 * 1024
# Failures that mean Redis or the database is unreachable (docs/operations.md, "Faults").
OUTAGES = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OperationalError, InterfaceError)


def _log_failure(exc: Exception, message: str, *args: object) -> None:
    """Log a failure: a dependency that is away (Redis, the database) in one line, as the
    operator expects during an outage; anything else with its traceback, as a bug."""
    if isinstance(exc, OUTAGES):
        log.warning(message + ": %r", *args, exc)
    else:
        log.exception(message, *args, exc_info=exc)


class Carrier(Protocol):
    """What a session needs from a transport."""

    label: str
    # Where the connection comes from (an IP address, or an Iroh endpoint id), for
    # throttling wrong keys per source.
    peer: str

    async def admitted(self) -> None:
        """The join was accepted: lift the limits that hold before it."""

    async def send_text(self, text: str) -> None:
        """Write one control frame (already serialized, compact JSON)."""

    async def send_bytes(self, data: bytes) -> None:
        """Write one binary message (WebSocket media replies only)."""

    async def close(self) -> None:
        """Close the connection after everything written so far has been delivered."""

    async def abort(self) -> None:
        """Close at once, dropping what the client has not read."""


class ConnectionGate:
    """Counts this process's connections against TRPG_TUI__MAX_CONNECTIONS.

    The cap is per server process by design (DECISIONS), so a process-local count is
    the right home for it.
    """

    def __init__(self) -> None:
        self.live = 0

    def try_enter(self) -> bool:
        if self.live >= settings.TRPG_MAX_CONNECTIONS:
            return False
        self.live += 1
        return True

    def leave(self) -> None:
        self.live -= 1


gate = ConnectionGate()


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

    @classmethod
    def of(cls, access_key: AccessKey) -> Seat:
        """The seat an access key gives (as the key is now)."""
        member = coordination.Member(access_key.member_id, access_key.name, access_key.role)
        return cls(access_key.room_id, access_key.room.name, member, access_key.pk)


class DeliveredRows:
    """The stored rows (transcript entries, turn events, media) this connection has
    been shown, newest `KEEP`, so that a replay, the live broadcast and a catch-up
    never show one row twice."""

    KEEP = 4096

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int], None] = {}

    def __contains__(self, row: tuple[str, int]) -> bool:
        return row in self._rows

    def add(self, row: tuple[str, int]) -> None:
        self._rows[row] = None
        if len(self._rows) > self.KEEP:
            del self._rows[next(iter(self._rows))]


def encode(frame: dict) -> str:
    """Compact JSON, one frame, UTF-8 as-is."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


class SessionCore:
    """The protocol state machine of one connection."""

    def __init__(self, carrier: Carrier) -> None:
        self.carrier = carrier
        self.connection_id = uuid.uuid4().hex
        self.seat: Seat | None = None
        self.locale = settings.TRPG_LOCALE
        self._outbox: asyncio.Queue = asyncio.Queue(maxsize=settings.TRPG_SEND_QUEUE_FRAMES)
        self._tasks: list[asyncio.Task] = []
        self._closing = False
        self._counted = False
        # Room messages, in arrival order. Filled from the moment of join; read only
        # once the joiner's replay is sent, so live frames follow it, in order, once.
        self._inbox: asyncio.Queue[dict] = asyncio.Queue()
        self._deadline: asyncio.Task | None = None
        self._inputs: asyncio.Queue[str] = asyncio.Queue()
        self._turn_worker: asyncio.Task | None = None
        self._media: media_channel.MediaRequests | None = None
        self._delivered = DeliveredRows()

    # --- carrier-facing ---------------------------------------------------------------

    async def open(self) -> None:
        """Start the session on a freshly accepted connection."""
        self._writer = asyncio.create_task(self._write_loop())
        self._tasks.append(self._writer)
        if not gate.try_enter():
            await self.fail("too_many_connections")
            return
        self._counted = True
        self._deadline = asyncio.create_task(self._join_deadline())
        self._tasks.append(self._deadline)

    async def receive_text(self, text: str) -> None:
        """Handle one control frame from the client."""
        if not self._closing:
            await self._contained("frame", self._receive_text(text))

    async def _receive_text(self, text: str) -> None:
        limit = TEXT_FRAME_LIMIT if self.seat is not None else PRE_JOIN_LIMIT
        if len(text) > limit:  # never parse a huge text (the Iroh line cap, on WebSocket)
            await self.reject_frame(f"a control frame is at most {limit // 1024} KiB here")
            return
        try:
            frame = inbound.parse_frame(text)
        except inbound.FrameError as exc:
            if exc.code != "bad_frame" and self.seat is not None:
                self.send_error(exc.code)
                return
            await self.reject_frame(exc.detail)
            return
        if self.seat is None:
            if not isinstance(frame, inbound.Join):
                await self.fail("bad_frame", message_key="join_before_anything")
                return
            await self._join(frame)
            return
        await self._route(frame)

    async def reject_frame(self, detail: str) -> None:
        """Answer a frame the carrier or the parser could not accept.

        Before join this ends the connection; after join it only costs the frame.
        """
        if self.seat is None:
            await self.fail("bad_frame", detail=detail)
        else:
            self.send_error("bad_frame", detail=detail)

    async def receive_binary(self, data: bytes) -> None:
        """Handle one binary message (the WebSocket media channel)."""
        if not self._closing:
            await self._contained("media message", self._receive_binary(data))

    async def _receive_binary(self, data: bytes) -> None:
        if self.seat is None or self._media is None:
            await self.fail("bad_frame", message_key="join_before_anything")
            return
        try:
            raw, body = media_channel.split_ws_envelope(data)
            request = media_channel.parse_header(raw)
        except media_channel.BadEnvelope as exc:
            self.send_error("bad_frame", detail=str(exc))
            return
        try:
            if request["op"] == "put":
                await self._media.put_whole(request, body)  # success: the room's `media` broadcast
            else:
                self.send_binary(await self._media.get_whole(request))
        except MediaError as refused:
            self.send_error(refused.code)

    async def media_stream(self, header: bytes | None, stream: media_channel.MediaStream) -> None:
        """Serve one Iroh media stream (its header line, then its body)."""
        try:
            if self.seat is None or self._media is None or header is None:
                raise media_channel.BadEnvelope("a media request needs a joined connection and a header")
            request = media_channel.parse_header(header)
        except media_channel.BadEnvelope as exc:
            await stream.write(media_channel.line(self.error_frame("bad_frame", detail=str(exc))))
            await stream.finish()
            return
        try:
            await self._media.serve_stream(request, stream)
        except Exception:
            log.exception("connection=%s media stream failed", self.connection_id)
            with contextlib.suppress(Exception):
                await stream.write(media_channel.line(self.error_frame("server_error")))
                await stream.finish()

    async def _contained(self, what: str, work: Awaitable[None]) -> None:
        """Run the handling of one message so that no failure escapes to the carrier.

        An exception here would end the connection without its teardown (daphne closes
        with 1011 and never calls `disconnect`), so it becomes a `server_error` instead:
        the connection stays open after join, and is closed (and cleaned up) before it.
        """
        try:
            await work
        except Exception as exc:
            _log_failure(exc, "connection=%s could not handle a %s", self.connection_id, what)
            if self.seat is None:
                await self.fail("server_error")
            else:
                self.send_error("server_error")

    async def closed(self) -> None:
        """The connection is gone: give back its slot, leave the room, tell the others.

        Each step runs even when an earlier one fails (the shared store may be down):
        the slot is given back first, and a presence entry this cannot remove is
        dropped by the process's next round of upkeep (`hub.Upkeep`).
        """
        self._closing = True
        for task in self._tasks:
            task.cancel()
        if self._counted:
            gate.leave()
            self._counted = False
        seat, self.seat = self.seat, None
        if seat is None:
            return
        for step, work in (
            ("close.detach", lambda: hub.local_hub.detach(seat.room_id, self)),
            (
                "close.presence",
                lambda: coordination.shared().presence_remove(seat.room_id, self.connection_id),
            ),
            ("close.announce", lambda: hub.publish_presence_changed(seat.room_id)),
        ):
            try:
                failpoints.hit(step)
                await work()
            except Exception as exc:
                log.warning("connection=%s teardown step %s failed: %r", self.connection_id, step, exc)

    # --- writing ---------------------------------------------------------------------------

    def send(self, frame: dict) -> None:
        """Queue one frame for this connection; a client too far behind is dropped."""
        self._enqueue(encode(frame))

    def send_binary(self, data: bytes) -> None:
        """Queue one binary message (a WebSocket media reply)."""
        self._enqueue(data)

    def _enqueue(self, item: str | bytes) -> None:
        if self._closing:
            return
        try:
            self._outbox.put_nowait(item)
        except asyncio.QueueFull:
            log.warning(
                "connection=%s carrier=%s stalled with %s frames queued; disconnecting",
                self.connection_id,
                self.carrier.label,
                self._outbox.qsize(),
            )
            self._closing = True
            self._drop_queue()
            self._tasks.append(asyncio.create_task(self.carrier.abort()))

    def error_frame(self, code: str, *, message_key: str | None = None, **values: object) -> dict:
        """An `error` frame with its message in this viewer's locale."""
        values.setdefault("detail", "")
        return {
            "type": "error",
            "code": code,
            "message": error_message(message_key or code, self.locale, **values),
        }

    def send_error(self, code: str, *, message_key: str | None = None, **values: object) -> None:
        """Send an `error` frame that leaves the connection open."""
        self.send(self.error_frame(code, message_key=message_key, **values))

    async def fail(self, code: str, *, message_key: str | None = None, **values: object) -> None:
        """Send an `error` frame, then close once it has been delivered."""
        if self._closing:
            return
        self.send_error(code, message_key=message_key, **values)
        if self._closing:  # the error did not fit: the client is not reading at all
            return
        self._closing = True
        self._outbox.put_nowait(_CLOSE)

    async def deliver_then_close(self, frame: dict, timeout: float = 5.0) -> None:
        """Send a last frame, close once it is written, and wait (up to `timeout`)."""
        self.send(frame)
        if not self._closing:
            self._closing = True
            self._outbox.put_nowait(_CLOSE)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)

    def _drop_queue(self) -> None:
        while not self._outbox.empty():
            self._outbox.get_nowait()

    async def _write_loop(self) -> None:
        while True:
            item = await self._outbox.get()
            if item is _CLOSE:
                await self.carrier.close()
                return
            try:
                if isinstance(item, bytes):
                    await self.carrier.send_bytes(item)
                else:
                    await self.carrier.send_text(item)
            except Exception:
                log.info("connection=%s write failed; closing", self.connection_id)
                self._closing = True
                await self.carrier.close()
                return

    # --- handshake ------------------------------------------------------------------------

    async def _join_deadline(self) -> None:
        await asyncio.sleep(settings.TRPG_JOIN_TIMEOUT)
        if self.seat is None:
            await self.fail("join_timeout", seconds=f"{settings.TRPG_JOIN_TIMEOUT:g}")

    async def _join(self, frame: inbound.Join) -> None:
        if self._deadline is not None:
            self._deadline.cancel()  # a join arrived in time; checking it may take a while
        if frame.locale in LOCALES:
            self.locale = frame.locale
        failpoints.hit("join.lookup")
        access_key: AccessKey | None = await database_sync_to_async(keystore.key_lookup_at_join)(frame.key)
        if access_key is None:
            # Every wrong key from a source costs it more time; a right key never waits.
            await asyncio.sleep(await coordination.shared().join_refused(self.carrier.peer))
            await self.fail("bad_key")
            return
        try:
            await self._admit(access_key)
        except Exception as exc:
            # A half-made seat must not stay: close, and `closed` takes back what was set up.
            _log_failure(exc, "connection=%s join failed", self.connection_id)
            await self.fail("server_error")

    async def _admit(self, access_key: AccessKey) -> None:
        seat = self.seat = Seat.of(access_key)
        member = seat.member
        self._media = media_channel.MediaRequests(
            Uploader(seat.room_id, member.member_id, member.name), lambda code: self.error_frame(code)
        )
        await self.carrier.admitted()
        await hub.local_hub.attach(seat.room_id, self)
        failpoints.hit("join.attach")
        await coordination.shared().presence_add(seat.room_id, self.connection_id, member)
        failpoints.hit("join.presence")
        log.info(
            "join room=%s member=%s role=%s carrier=%s",
            seat.room_name,
            member.member_id,
            member.role,
            self.carrier.label,
        )

        self.send(self._welcome(demo=seat.is_keeper and await demo_offered(seat.room_id)))
        # One read of the room serves the joiner's presence now and its state after the replay;
        # anything that changes meanwhile arrives as a live refresh once the replay is sent.
        online, room_now = await hub.room_reads.read(seat.room_id, None)
        self.send(self._presence(online))
        await hub.publish_presence_changed(seat.room_id, except_connection=self.connection_id)
        actor = await coordination.shared().busy_actor(seat.room_id)
        if actor:
            self.send({"type": "turn_status", "status": "busy", "actor": actor})
        failpoints.hit("join.replay")
        self._show(await self._replay(seat))
        self.send(self._state(seat, online, room_now))
        self.send({"type": "ui_manifest", "panels": []})

        self._tasks.append(asyncio.create_task(self._read_inbox()))

    async def _replay(self, seat: Seat) -> selectors.Replay:
        return await database_sync_to_async(selectors.replay_for)(
            room=Room(pk=seat.room_id), member_id=seat.member.member_id, is_keeper=seat.is_keeper
        )

    def _show(self, replay: selectors.Replay) -> None:
        """Send the replay's frames this connection has not been shown yet."""
        for frame, row in zip(replay.frames, replay.rows, strict=True):
            if row is not None:
                if row in self._delivered:
                    continue
                self._delivered.add(row)
            self.send(for_viewer(frame, self.locale))

    def presence_member(self) -> coordination.Member | None:
        """The member this connection is present as in its room (None before the join
        and after the connection closed)."""
        seat = self.seat
        return seat.member if seat is not None and not self._closing else None

    def _welcome(self, *, demo: bool) -> dict:
        assert self.seat is not None
        features = ["media", "audio"]
        if demo:
            features.append("demo")
        if self.seat.is_keeper and settings.TRPG_UPDATE_COMMAND:
            features.append("update")
        return {
            "type": "welcome",
            "protocol": PROTOCOL_VERSION,
            "features": features,
            "room": self.seat.room_name,
            "you": {
                "id": self.seat.member.member_id,
                "name": self.seat.member.name,
                "role": self.seat.member.role,
            },
            "locale": self.locale,
            "server": SERVER_NAME,
            "version": VERSION,
        }

    # --- room messages ------------------------------------------------------------------------

    def room_message(self, message: dict) -> None:
        """Take one message of the room (called by the hub; never blocks)."""
        if not self._closing:
            self._inbox.put_nowait(message)

    async def _read_inbox(self) -> None:
        while True:
            message = await self._inbox.get()
            try:
                await self._on_room_message(message)
            except Exception:
                # One bad message must not deafen the connection to the rest of the room.
                log.exception("connection=%s could not handle %s", self.connection_id, message.get("type"))

    async def _on_room_message(self, message: dict) -> None:
        seat = self.seat
        if seat is None:
            return
        kind = message.get("type")
        if kind == "room.frame":
            row = tuple(message["row"]) if message.get("row") else None
            if row is not None:
                if row in self._delivered:
                    return  # the replay or a catch-up showed it already
                self._delivered.add(row)
            if self._may_see(seat, message):
                self.send(for_viewer(message["frame"], self.locale))
        elif kind == "room.presence":
            # Party presence changed, so each viewer also gets its own fresh state.
            if message.get("except") != self.connection_id:
                await self._send_presence_and_state(seat, message.get("refresh"))
        elif kind == "room.state":
            state = self._state(seat, *await hub.room_reads.read(seat.room_id, message.get("refresh")))
            if message.get("reset"):
                state["reset"] = True  # the client also clears its scrollback (checklist 128-129)
            self.send(state)
        elif kind == "room.key":
            if message.get("key") == seat.key_id:
                await self._key_changed(seat)
        elif kind == "room.disconnect":
            if message.get("member_id") == seat.member.member_id:
                await self.deliver_then_close(
                    {"type": "system", "level": "warn", "text": notice("disconnected", self.locale)}
                )
        elif kind == "room.resync":
            await self._catch_up(seat)

    async def _send_presence_and_state(self, seat: Seat, refresh: str | None) -> None:
        online, room = await hub.room_reads.read(seat.room_id, refresh)
        self.send(self._presence(online))
        self.send(self._state(seat, online, room))

    async def _catch_up(self, seat: Seat) -> None:
        """After the layer came back from a failure: the stored lines this connection
        missed meanwhile, in story order, then where the table stands now."""
        self._show(await self._replay(seat))
        if not await coordination.shared().busy_actor(seat.room_id):
            # A turn that ended during the outage may have lost its `idle`.
            self.send({"type": "turn_status", "status": "idle"})
        await self._send_presence_and_state(seat, None)

    async def _key_changed(self, seat: Seat) -> None:
        """This connection's access key changed: closed when it is gone (or moved to
        another room); welcomed again as the key is now when renamed or re-roled."""
        now = await self._current_seat()
        if now is None or now == seat:
            return
        self.seat = now
        assert self._media is not None
        self._media.uploader = Uploader(now.room_id, now.member.member_id, now.member.name)
        await coordination.shared().presence_add(now.room_id, self.connection_id, now.member)
        self.send(self._welcome(demo=False))
        # Everyone, this connection included, gets the new presence and its own state.
        await hub.publish_presence_changed(now.room_id)

    async def _current_seat(self) -> Seat | None:
        """The seat as the access key gives it now; None (and the connection closing
        with `bad_key`) when the key was deleted or moved to another room."""
        seat = self.seat
        if seat is None:
            return None
        access_key = await database_sync_to_async(services.key_holder)(seat.key_id)
        if access_key is None or access_key.room_id != seat.room_id:
            log.info("connection=%s key revoked; closing", self.connection_id)
            await self.fail("bad_key", message_key="key_revoked")
            return None
        return Seat.of(access_key)

    @staticmethod
    def _may_see(seat: Seat, message: dict) -> bool:
        if message.get("audience", Audience.EVERYONE) == Audience.EVERYONE:
            return True
        named = message.get("member_id")
        return seat.is_keeper or (bool(named) and named == seat.member.member_id)

    @staticmethod
    def _presence(online: list[coordination.Member]) -> dict:
        return {
            "type": "presence",
            "players": [{"id": m.member_id, "name": m.name, "online": True} for m in online],
            "online": len(online),
        }

    def _state(self, seat: Seat, online: list[coordination.Member], room: RoomRead) -> dict:
        viewer = Viewer(seat.member.member_id, seat.is_keeper, self.locale)
        return build_state(room=room, viewer=viewer, online=[(m.member_id, m.name) for m in online])

    # --- frames after join --------------------------------------------------------------------

    async def _route(self, frame: inbound.Inbound) -> None:
        seat = self.seat
        assert seat is not None
        failpoints.hit("frame.route")
        if isinstance(frame, inbound.Input):
            await self._accept_input(frame.text)
        elif isinstance(frame, inbound.Ping):
            self.send({"type": "pong", "t": frame.t})
        elif isinstance(frame, inbound.Join):
            self.send_error("bad_frame", detail="already joined")
        elif isinstance(frame, inbound.ListPackCards):
            self.send({"type": "pack_cards", "cards": []})
        elif isinstance(frame, inbound.PanelIntent):
            # Nobody's manifest has panels yet, so no panel is this member's to use.
            self.send_error("forbidden", message_key="panel_forbidden")
        elif isinstance(frame, inbound.AvatarSet):
            try:
                await database_sync_to_async(set_avatar)(
                    seat.room_id,
                    seat.member.member_id,
                    frame.hash,
                    character=frame.character,
                    user=frame.user,
                )
            except MediaError as refused:
                self.send_error(
                    refused.code, message_key="avatar_forbidden" if refused.code == "forbidden" else None
                )
                return
            await hub.publish_state_refresh(seat.room_id)
        elif frame.type.startswith("admin_"):
            await self._admin(frame)
        elif isinstance(frame, inbound.MediaOffer):
            await self._offer(frame)
        elif isinstance(frame, inbound.MediaSetEnabled):
            current = await self._current_seat() if seat.is_keeper else seat  # a demotion counts at once
            if current is None:
                return
            if not current.is_keeper:
                self.send_error("forbidden")
                return
            await database_sync_to_async(set_uploads_enabled)(seat.room_id, frame.enabled)
            await hub.publish(seat.room_id, {"type": "media_enabled", "enabled": frame.enabled})
        else:
            self.send_error("server_error", message_key="not_yet", what=frame.type)

    async def _offer(self, frame: inbound.MediaOffer) -> None:
        seat = self.seat
        assert seat is not None
        uploader = Uploader(seat.room_id, seat.member.member_id, seat.member.name)
        try:
            accepted = await database_sync_to_async(media_offer)(
                uploader, name=frame.name, mime=frame.mime, size=frame.size, sha256=frame.sha256
            )
        except MediaError as refused:
            self.send_error(refused.code)
            return
        if accepted.existing is None:
            self.send({"type": "media_accept", "upload_id": accepted.upload_id})
            return
        stored = accepted.existing.as_frame()
        field = "media" if stored["type"] == "media" else "audio"
        self.send({"type": "media_accept", "upload_id": "", "existing": True, field: stored})
        # Everyone sees the file again; the history keeps its one entry.
        await hub.publish(seat.room_id, stored)

    async def _admin(self, frame: inbound.Inbound) -> None:
        if self.seat is None or not self.seat.is_keeper:  # nothing is read for a player
            self.send(admin_frames.Admin(0, "", False, self.locale).error("forbidden"))
            return
        # The key's role as it is now, not as it was at join: a demoted keeper is refused.
        seat = await self._current_seat()
        if seat is None:
            return
        admin = admin_frames.Admin(seat.room_id, seat.room_name, seat.is_keeper, self.locale)
        if not admin.is_keeper:
            self.send(admin.error("forbidden"))
            return
        if isinstance(frame, inbound.AdminUpdateServer):
            await self._update_server(admin)
            return
        slow = admin_frames.SLOW_HANDLERS.get(type(frame))
        if slow is not None:
            self.send(await slow(frame, admin))
            return
        # The reply is queued as soon as the answer is back, before anything else is
        # awaited: an answer that revoked this very key (deleting the room's data) is
        # followed by the revocation, and the reply must reach the keeper first.
        if isinstance(frame, admin_frames.TURN_TAKING):
            async with coordination.shared().room_turn(seat.room_id, seat.member.name):
                reply = await database_sync_to_async(admin_frames.answer)(frame, admin)
                self.send(reply.frame)
        else:
            reply = await database_sync_to_async(admin_frames.answer)(frame, admin)
            self.send(reply.frame)
        if reply.reset:
            await hub.publish_state_refresh(seat.room_id, reset=True)

    async def _update_server(self, admin: admin_frames.Admin) -> None:
        if not settings.TRPG_UPDATE_COMMAND:
            self.send(admin.error("not_configured"))
            return
        result = await asyncio.to_thread(self_update.run_update_command)
        if not result.ok:
            self.send({"type": "admin_update", "status": "failed", "output": result.output})
            return
        await self.deliver_then_close(
            {"type": "admin_update", "status": "restarting", "output": result.output}
        )
        self_update.restart()

    async def _accept_input(self, text: str) -> None:
        seat = self.seat
        assert seat is not None
        if len(text) > settings.TRPG_INPUT_MAX_CHARS:
            self.send_error("input_too_long", limit=settings.TRPG_INPUT_MAX_CHARS)
            return
        if not text.strip():
            return
        allowed = await coordination.shared().take_tokens(
            [f"room:{seat.room_id}", f"member:{seat.room_id}:{seat.member.member_id}"],
            burst=settings.TRPG_RATE_BURST,
            refill_seconds=settings.TRPG_RATE_REFILL_SECONDS,
        )
        if not allowed:
            self.send_error("rate_limited")
            return
        # One worker per connection keeps a member's inputs in the order typed; it is not
        # cancelled on disconnect, so an accepted turn always finishes.
        self._inputs.put_nowait(text)
        if self._turn_worker is None or self._turn_worker.done():
            self._turn_worker = asyncio.create_task(self._run_inputs(seat))

    async def _run_inputs(self, seat: Seat) -> None:
        context = TurnContext(
            room_id=seat.room_id,
            member=seat.member,
            key_id=seat.key_id,
            locale=self.locale,
            send_private=self.send,
            queued_notice=lambda: self.send(
                {"type": "system", "level": "info", "text": notice("queued", self.locale)}
            ),
        )
        while not self._inputs.empty():
            text = self._inputs.get_nowait()
            try:
                await run_input(context, text)
            except Exception as exc:
                _log_failure(exc, "turn failed room=%s member=%s", seat.room_id, seat.member.member_id)
                self.send_error("server_error")
