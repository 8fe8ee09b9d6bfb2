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
from dataclasses import dataclass
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings

from keeper.frames import for_viewer
from keeper.kp.sample import demo_offered
from keeper.state import RoomRead, Viewer, build_state
from loreweaver.version import PROTOCOL_VERSION, SERVER_NAME, VERSION
from media_store.services import MediaError, Uploader, set_avatar, set_uploads_enabled
from media_store.services import offer as media_offer
from rooms import admin_frames, coordination, hub, keystore, media_channel, selectors, self_update
from rooms.models import AccessKey, Audience
from rooms.protocol import inbound
from rooms.protocol.messages import error_message, notice
from rooms.turns import TurnContext, run_input

log = logging.getLogger(__name__)

LOCALES = ("en", "zh")
_CLOSE = object()
# The longest control frame parsed, on either carrier (Iroh's line guard is the same).
TEXT_FRAME_LIMIT = 1024 * 1024


class Carrier(Protocol):
    """What a session needs from a transport."""

    label: str

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
    """The member a joined connection speaks for."""

    room_id: int
    room_name: str
    member: coordination.Member

    @property
    def is_keeper(self) -> bool:
        return self.member.role == "keeper"


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
        if self._closing:
            return
        if len(text) > TEXT_FRAME_LIMIT:  # never parse a huge text (the Iroh line cap, on WebSocket)
            await self.reject_frame("a control frame is at most 1 MiB")
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
        if self._closing:
            return
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
        await self._media.serve_stream(request, stream)

    async def closed(self) -> None:
        """The connection is gone: leave the room and tell the others."""
        self._closing = True
        for task in self._tasks:
            task.cancel()
        if self._counted:
            gate.leave()
            self._counted = False
        seat, self.seat = self.seat, None
        if seat is not None:
            await hub.local_hub.detach(seat.room_id, self)
            await coordination.shared().presence_remove(seat.room_id, self.connection_id)
            await hub.publish_presence_changed(seat.room_id)

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
        if frame.locale in LOCALES:
            self.locale = frame.locale
        access_key: AccessKey | None = await database_sync_to_async(keystore.key_lookup_at_join)(frame.key)
        if access_key is None:
            await self.fail("bad_key")
            return
        if self._deadline is not None:
            self._deadline.cancel()
        member = coordination.Member(access_key.member_id, access_key.name, access_key.role)
        seat = Seat(access_key.room_id, access_key.room.name, member)
        self.seat = seat
        self._media = media_channel.MediaRequests(
            Uploader(seat.room_id, member.member_id, member.name), lambda code: self.error_frame(code)
        )
        await hub.local_hub.attach(seat.room_id, self)
        await coordination.shared().presence_add(seat.room_id, self.connection_id, member)
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
        replay = await database_sync_to_async(selectors.replay_for)(
            room=access_key.room, member_id=member.member_id, is_keeper=seat.is_keeper
        )
        for replayed in replay.frames:
            self.send(for_viewer(replayed, self.locale))
        self.send(self._state(seat, online, room_now))
        self.send({"type": "ui_manifest", "panels": []})

        self._tasks.append(asyncio.create_task(self._read_inbox(replay)))

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

    @staticmethod
    def _shown_in_replay(message: dict, replay: selectors.Replay) -> bool:
        row = message.get("row")
        return bool(row) and replay.shows(*row)

    # --- room messages ------------------------------------------------------------------------

    def room_message(self, message: dict) -> None:
        """Take one message of the room (called by the hub; never blocks)."""
        self._inbox.put_nowait(message)

    async def _read_inbox(self, replay: selectors.Replay) -> None:
        while True:
            message = await self._inbox.get()
            if self._shown_in_replay(message, replay):
                continue
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
            if self._may_see(seat, message):
                self.send(for_viewer(message["frame"], self.locale))
        elif kind == "room.presence":
            # Party presence changed, so each viewer also gets its own fresh state.
            if message.get("except") != self.connection_id:
                online, room = await hub.room_reads.read(seat.room_id, message.get("refresh"))
                self.send(self._presence(online))
                self.send(self._state(seat, online, room))
        elif kind == "room.state":
            state = self._state(seat, *await hub.room_reads.read(seat.room_id, message.get("refresh")))
            if message.get("reset"):
                state["reset"] = True  # the client also clears its scrollback (checklist 128-129)
            self.send(state)

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
            if not seat.is_keeper:
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
        seat = self.seat
        assert seat is not None
        admin = admin_frames.Admin(seat.room_id, seat.room_name, seat.is_keeper, self.locale)
        if not admin.is_keeper:  # the role stamped at join is the only gate; nothing is read
            self.send(admin.error("forbidden"))
            return
        if isinstance(frame, inbound.AdminUpdateServer):
            await self._update_server(admin)
            return
        slow = admin_frames.SLOW_HANDLERS.get(type(frame))
        if slow is not None:
            self.send(await slow(frame, admin))
            return
        if isinstance(frame, admin_frames.TURN_TAKING):
            async with coordination.shared().room_turn(seat.room_id, seat.member.name):
                reply = await database_sync_to_async(admin_frames.answer)(frame, admin)
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
            except Exception:
                log.exception("turn failed room=%s member=%s", seat.room_id, seat.member.member_id)
                self.send_error("server_error")
