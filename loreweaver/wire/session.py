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
import datetime
import logging
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from base import failpoints, frames, logs, metrics
from keeper.kp.keepers import bot_on, demo_offered, images_configured, offline_keeper_plays
from loreweaver.wire import admission, coordination, handlers, hub, media_channel, seats
from loreweaver.wire.protocol import inbound
from loreweaver.wire.protocol.messages import error_message, notice
from loreweaver.wire.room_messages import RoomMessages
from loreweaver.wire.seats import DeliveredRows, Seat, encode, log_failure
from media_store.services import MediaError, Uploader
from packs import services as pack_services
from rooms.held_keys import HeldKey, key_at_join

log = logging.getLogger(__name__)

LOCALES = ("en", "zh")
_CLOSE = object()
_RESTART = object()  # close with "the server is restarting: come back"


@dataclass(frozen=True)
class _Refusal:
    """A frame refusing what this member asked, with the game's reason for it (a code of
    `keeper.commands.Refused`), for a carrier whose protocol says a refusal its own way."""

    text: str
    code: str


@dataclass(frozen=True)
class _InputDone:
    """The game is done with this member's input `number` (`MemberInputs.taken`)."""

    number: int | None


@dataclass(frozen=True)
class _Burst:
    """A frame of a replay or catch-up in the send queue (not held to the live bound)."""

    item: str | bytes


# The longest control frame parsed, on either carrier (Iroh's line guard is the same).
TEXT_FRAME_LIMIT = 1024 * 1024
# At most this many frames, or this many characters, go in one write of a carrier that
# takes several at once (`Carrier.send_texts`): a long replay is written in pieces.
WRITE_TOGETHER = 32
WRITE_TOGETHER_CHARS = 256 * 1024
# The longest message anyone may send before a join is accepted: a join is a few
# hundred bytes, and nobody unauthenticated may make the server hold more.
PRE_JOIN_LIMIT = 64 * 1024


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

    async def close_for_restart(self) -> None:
        """Close as `close` does, saying the server is restarting (come back soon)."""

    # A carrier whose protocol says these its own way (SideQuest's) also has:
    # - `async def send_refusal(self, text: str, code: str) -> None`: a control frame
    #   refusing what the member asked, for the reason `code` (else it is written as
    #   any frame);
    # - `async def input_done(self, number: int | None) -> None`: the game is done with
    #   its member's input `number` (`MemberInputs.taken` once it was accepted; None
    #   when the process that played it did not say), after the input's last frame
    #   (`SessionCore.tells_turns_end`).
    # A carrier for which one write of several frames costs about what one frame's
    # does (Iroh's, a call into its Rust stream each) also has
    # - `async def send_texts(self, texts: list[str]) -> None`: write these control
    #   frames, in order, as one write; the write loop hands it the frames queued
    #   together (a turn's line and `state`).


class SessionCore(RoomMessages):
    """The protocol state machine of one connection."""

    def __init__(self, carrier: Carrier) -> None:
        self.carrier = carrier
        # The carrier leads the id, so presence (keyed by it) also says how each member
        # is connected (the operator console shows it).
        self.connection_id = f"{carrier.label}-{uuid.uuid4().hex}"
        self.seat: Seat | None = None
        # The language the member joined with, and the one their own screen is in (the
        # browser's picker may change it: `viewer_locale`), which `state` labels follow.
        self.join_locale = self.viewer_locale = settings.TRPG_LOCALE
        # The room's language when its keeper chose one (`.language`): the story's
        # language for every member, kept current by `room.language` messages.
        self.room_locale = ""
        # Bounded by hand (`_enqueue`): live frames beyond TRPG_SEND_QUEUE_FRAMES mean the
        # client stopped reading; a replay is as long as the operator made it.
        self._outbox: asyncio.Queue = asyncio.Queue()
        self._live_bound = settings.TRPG_SEND_QUEUE_FRAMES  # read once: it is read at every frame
        self._burst_queued = 0  # replay frames among them
        self._tasks: list[asyncio.Task] = []
        self._closing = False
        self._ticket = admission.NO_PLACE  # its place under the connection cap
        # Room messages, in arrival order. Filled from the moment of join; read only
        # once the joiner's replay is sent, so live frames follow it, in order, once.
        self._inbox: asyncio.Queue[dict] = asyncio.Queue()
        self._inbox_idle = False  # its reader waits for the next message, none is pending
        # The carrier's own writer of a text frame, when it has one (`TableConsumer.write_now`):
        # a frame with nothing queued before it is written at once, not by the write loop.
        self._write_now = getattr(carrier, "write_now", None)
        self._send_texts = getattr(carrier, "send_texts", None)
        self._deadline: asyncio.Task | None = None
        self.inputs = handlers.MemberInputs(self)
        self._media: media_channel.MediaRequests | None = None
        self._delivered = DeliveredRows()
        # The newest snapshot of the room seen, and who is online (with carriers): each
        # `state` and `presence` sent is projected from them, the last presence kept.
        self._snapshot: hub.Snapshot | None = None
        self._online: list[tuple[coordination.Member, list[str]]] = []
        self._presence_sent: dict | None = None
        # The room's panels for each role, and this viewer's own (a `panel_intent` names one).
        self._manifests: dict[str, list[dict]] = {"player": [], "keeper": []}
        self.panel_ids: frozenset[str] = frozenset()
        self.pack_hashes: frozenset[str] = frozenset()  # the pack files those panels name

    @property
    def locale(self) -> str:
        """The language every server line of the story is written in for this member:
        the room's when its keeper chose one, else the member's join language."""
        return self.room_locale or self.join_locale

    # --- carrier-facing ---------------------------------------------------------------

    async def open(self) -> None:
        """Start the session on a freshly accepted connection."""
        logs.connection_log(carrier=self.carrier.label)  # before the tasks: they share it
        self._writer = asyncio.create_task(self._write_loop())
        self._tasks.append(self._writer)
        metrics.CONNECTIONS.labels(self.carrier.label).inc()
        self._ticket = admission.gate.enter(self.carrier.peer, self._give_way)
        if not self._ticket.held:
            await self.fail("too_many_connections")
            return
        self._deadline = asyncio.create_task(self._join_deadline())
        self._tasks.append(self._deadline)

    async def receive_text(self, text: str) -> None:
        """Handle one control frame from the client."""
        self._ticket.heard()
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
        failpoints.hit("frame.route")
        metrics.FRAMES_IN.labels(frame.type).inc()
        await handlers.HANDLERS[frame.type](self, frame)

    async def reject_frame(self, detail: str) -> None:
        """Answer a frame the carrier or the parser could not accept: before join this
        ends the connection; after join it only costs the frame."""
        if self.seat is None:
            await self.fail("bad_frame", detail=detail)
        else:
            self.send_error("bad_frame", detail=detail)

    async def receive_binary(self, data: bytes) -> None:
        """Handle one binary message (the WebSocket media channel)."""
        self._ticket.heard()
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
        the connection stays open after join, and is closed (and cleaned up) before it."""
        try:
            await work
        except Exception as exc:
            log_failure(exc, "connection=%s could not handle a %s", self.connection_id, what)
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
        metrics.CONNECTIONS.labels(self.carrier.label).dec()
        self._closing = True
        for task in self._tasks:
            task.cancel()
        self._ticket.leave()
        seat, self.seat = self.seat, None
        if seat is None:
            return
        metrics.MEMBERS.labels(self.carrier.label).dec()
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
        metrics.frames_out(frame.get("type", "?")).inc()
        self._enqueue(encode(frame))

    def send_refusal(self, frame: dict, code: str) -> None:
        """Queue a frame that refuses what this member asked, with the game's reason."""
        metrics.frames_out(frame.get("type", "?")).inc()
        self._enqueue(_Refusal(encode(frame), code))

    @property
    def tells_turns_end(self) -> bool:
        """Whether the carrier tells the end of each input its own way (`input_done`)."""
        return hasattr(self.carrier, "input_done")

    def input_done(self, number: int | None) -> None:
        """Queue the game's word that it is done with this member's input `number`, after
        everything the input sent (`room.input_done`)."""
        self._enqueue(_InputDone(number))

    def send_binary(self, data: bytes) -> None:
        """Queue one binary message (a WebSocket media reply)."""
        self._enqueue(data)

    def _enqueue(self, item: str | bytes | _Refusal | object, *, live: bool = True) -> None:
        if self._closing:
            return
        if not live:
            self._burst_queued += 1
            self._outbox.put_nowait(_Burst(item))
        elif self._write_now is not None and type(item) is str and not self._outbox.qsize():
            self._write_at_once(item)
        elif self._outbox.qsize() - self._burst_queued < self._live_bound:
            self._outbox.put_nowait(item)
        else:
            owed = seats.queued_bytes(self._outbox._queue)  # what waits already; this frame is dropped
            seats.log_stalled(self.connection_id, self.seat, frames=self._outbox.qsize(), owed=owed)
            self._closing = True
            self._drop_queue()
            self._tasks.append(asyncio.create_task(self.carrier.abort()))

    def _write_at_once(self, text: str) -> None:
        # Nothing waits before it, so the write loop would write it next: write it now,
        # without the loop's wake-up and the carrier's coroutines. A slow reader is
        # still dropped by the bytes it owes (`BoundedWebSocketProtocol`).
        try:
            if self._write_now(text):
                return
        except Exception as exc:
            self._write_failed(exc)
            self._tasks.append(asyncio.create_task(self.carrier.close()))
            return
        self._outbox.put_nowait(text)  # the socket is closing: the write loop finds out

    def error_frame(self, code: str, *, message_key: str | None = None, **values: object) -> dict:
        """An `error` frame with its message in this viewer's locale."""
        values.setdefault("detail", "")
        return frames.error(code, error_message(message_key or code, self.locale, **values))

    def send_error(self, code: str, *, message_key: str | None = None, **values: object) -> None:
        """Send an `error` frame that leaves the connection open."""
        metrics.REFUSALS.labels(code).inc()
        self.send(self.error_frame(code, message_key=message_key, **values))

    async def fail(self, code: str, *, message_key: str | None = None, **values: object) -> None:
        """Send an `error` frame, then close once it has been delivered."""
        self._end(code, message_key=message_key, **values)

    def _end(self, code: str, *, message_key: str | None = None, **values: object) -> None:
        if self._closing:
            return
        self.send_error(code, message_key=message_key, **values)
        if not self._closing:  # else the error did not fit: the client is not reading at all
            self._closing = True
            self._outbox.put_nowait(_CLOSE)

    async def deliver_then_close(self, frame: dict, timeout: float = 5.0, *, restart: bool = False) -> None:
        """Send a last frame, close once it is written (`restart`: with the carrier's
        reconnectable close), and wait (up to `timeout`)."""
        self.send(frame)
        if not self._closing:
            self._closing = True
            self._outbox.put_nowait(_RESTART if restart else _CLOSE)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)

    def _drop_queue(self) -> None:
        while not self._outbox.empty():
            self._outbox.get_nowait()
        self._burst_queued = 0

    async def _write_loop(self) -> None:
        while True:
            item = await self._outbox.get()
            if item is _CLOSE or item is _RESTART:
                await (self.carrier.close() if item is _CLOSE else self.carrier.close_for_restart())
                return
            if isinstance(item, _Burst):
                self._burst_queued -= 1
                item = item.item
            try:
                if isinstance(item, bytes):
                    await self.carrier.send_bytes(item)
                elif isinstance(item, _Refusal):
                    refuse = getattr(self.carrier, "send_refusal", None)
                    await (refuse(item.text, item.code) if refuse else self.carrier.send_text(item.text))
                elif isinstance(item, _InputDone):
                    await self.carrier.input_done(item.number)
                elif self._send_texts is not None:
                    await self._send_texts(self._with_queued_texts(item))
                else:
                    await self.carrier.send_text(item)
            except Exception as exc:
                self._write_failed(exc)
                await self.carrier.close()
                return

    def _with_queued_texts(self, text: str) -> list[str]:
        """`text` and the text frames queued right behind it (a turn's, queued together),
        taken off the queue, up to WRITE_TOGETHER of them or WRITE_TOGETHER_CHARS."""
        texts, size = [text], len(text)
        queued = self._outbox._queue  # asyncio.Queue's deque: peeked, never reordered
        while queued and len(texts) < WRITE_TOGETHER and size < WRITE_TOGETHER_CHARS:
            item = queued[0]
            burst = isinstance(item, _Burst)
            if type(item.item if burst else item) is not str:
                break
            self._outbox.get_nowait()
            self._burst_queued -= burst
            texts.append(item.item if burst else item)
            size += len(texts[-1])
        return texts

    def _write_failed(self, exc: Exception) -> None:
        # Whichever way the frame went, a failed write ends the connection.
        log.info("connection=%s write failed (%r); closing", self.connection_id, exc)
        self._closing = True

    # --- handshake ------------------------------------------------------------------------

    def _give_way(self) -> None:
        # Now, not in a task: its place is a newcomer's already, so none of its frames may be read.
        self._end("join_timeout", message_key="crowded_out")

    async def _join_deadline(self) -> None:
        await asyncio.sleep(settings.TRPG_JOIN_TIMEOUT)
        if self.seat is None:
            await self.fail("join_timeout", seconds=f"{settings.TRPG_JOIN_TIMEOUT:g}")

    async def _join(self, frame: inbound.Join) -> None:
        if self._deadline is not None:
            self._deadline.cancel()  # a join arrived in time; checking it may take a while
        if frame.locale in LOCALES:
            self.join_locale = self.viewer_locale = frame.locale
        failpoints.hit("join.lookup")
        access_key = await database_sync_to_async(key_at_join)(frame.key)
        if access_key is None:
            # Every wrong key from a source costs it more time; a right key never waits,
            # and a wrong one waits outside the handshake budget (`admission`).
            delay = await coordination.shared().join_refused(self.carrier.peer)
            if self._ticket.refuse():
                await asyncio.sleep(delay)
            await self.fail("bad_key")
            return
        if minutes := access_key.kept_out_minutes:
            # A join error: a client that rejoins by itself is told why and stops.
            await self.fail("bad_key", message_key="kept_out", minutes=minutes)
            return
        try:
            await self._admit(access_key)
        except Exception as exc:
            # A half-made seat must not stay: close, and `closed` takes back what was set up.
            log_failure(exc, "connection=%s join failed", self.connection_id)
            await self.fail("server_error")

    async def _admit(self, access_key: HeldKey) -> None:
        self._ticket.seat()
        seat = self.seat = Seat.of(access_key)
        member = seat.member
        self._media = media_channel.MediaRequests(
            Uploader(seat.room_id, member.member_id, member.name),
            lambda code: self.error_frame(code),
            lambda: self.pack_hashes,
        )
        await self.carrier.admitted()
        await hub.local_hub.attach(seat.room_id, self)
        failpoints.hit("join.attach")
        await coordination.shared().presence_add(seat.room_id, self.connection_id, member)
        failpoints.hit("join.presence")
        metrics.MEMBERS.labels(self.carrier.label).inc()
        logs.connection_log(room=seat.room_name, member=member.member_id)
        log.info(
            "join room=%s member=%s role=%s carrier=%s",
            seat.room_name,
            member.member_id,
            member.role,
            self.carrier.label,
        )

        demo = seat.is_keeper and await demo_offered(seat.room_id)
        await self.read_room_language(seat)
        offline = await offline_keeper_plays(seat.room_id)
        imagegen = await images_configured(seat.room_id)
        self.send(seat.welcome(self.locale, demo=demo, imagegen=imagegen, offline=offline))
        # One read of the room serves the joiner's presence now and its state after the replay;
        # anything that changes meanwhile arrives as a live refresh once the replay is sent.
        await self._read_room_now(seat)
        self._send_presence()
        await hub.publish_presence_changed(seat.room_id, except_connection=self.connection_id)
        actor = await coordination.shared().busy_actor(seat.room_id)
        if actor:
            self.send(frames.turn_busy(actor))
        failpoints.hit("join.replay")
        self._show(await self._replay(seat))
        self.send(self._state(seat))
        self._manifests = await database_sync_to_async(pack_services.room_manifests)(seat.room_id)
        # Read before the manifest, the join's last frame: a client that acts once it
        # has it (or a database fault that follows it) meets a join done with the database.
        failpoints.hit("join.rule")
        human_keeper = not await database_sync_to_async(bot_on)(seat.room_id)
        self._send_manifest(seat)
        if human_keeper:
            self.send(frames.system(notice("human_keeper", self.locale)))

        self._tasks.append(asyncio.create_task(self._read_inbox()))
        if access_key.expires_at is not None:
            self._tasks.append(asyncio.create_task(self._expire_at(access_key.expires_at)))

    async def _expire_at(self, moment: datetime.datetime) -> None:
        """Close the connection when its key runs out (unless the key changed meanwhile)."""
        await asyncio.sleep(max(0.0, (moment - timezone.now()).total_seconds()) + 0.05)
        await self.current_seat()  # an expired key is gone: the connection closes with bad_key

    @property
    def finished(self) -> asyncio.Task:
        """Done once the connection's last frame is written and it is closed."""
        return self._writer

    async def say_goodbye(self) -> None:
        """The process is stopping: tell the member, then close with the carrier's
        reconnectable close once everything queued before has been written."""
        goodbye = frames.system(notice("server_restarting", self.locale), "warn")
        await self.deliver_then_close(goodbye, restart=True)

    def presence_member(self) -> coordination.Member | None:
        """The member this connection is present as in its room (None before the join
        and after the connection closed)."""
        seat = self.seat
        return seat.member if seat is not None and not self._closing else None

    # --- room messages ------------------------------------------------------------------------

    def room_message(self, message: dict) -> None:
        """Take one message of the room (called by the hub; never blocks). One that needs
        no waiting is handled at once when its reader is idle, as the reader would have
        handled it next; the rest, in order, by the reader."""
        if self._closing:
            return
        if self._inbox_idle and not self._inbox.qsize():
            try:
                if self.on_room_message_now(message):
                    return
            except Exception as exc:
                self._log_room_failure(exc, message)
                return
        self._inbox.put_nowait(message)

    async def _read_inbox(self) -> None:
        while True:
            self._inbox_idle = True
            message = await self._inbox.get()
            self._inbox_idle = False
            try:
                await self.on_room_message(message)
            except Exception as exc:
                self._log_room_failure(exc, message)

    def _log_room_failure(self, exc: Exception, message: dict) -> None:
        # One bad message must not deafen the connection to the rest of the room;
        # a store that is away for a moment is a warning, not a bug.
        log_failure(exc, "connection=%s could not handle %s", self.connection_id, message.get("type"))
