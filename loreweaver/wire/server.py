"""The embedded all-in-one server: daphne (HTTP + WebSocket) and the Iroh endpoint.

Both share one process and one event loop: daphne runs Twisted's asyncio reactor, so
the Iroh accept loop, the WebSocket consumers and the room bus all live on the same
asyncio loop. The WebSocket protocol is daphne's, plus guards on what a client
can make the server hold (`BoundedWebSocketProtocol`), and a connection that never
sends a request is closed after the join timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from channels.routing import get_default_application
from daphne.endpoints import build_endpoint_description_strings
from daphne.http_protocol import WebRequest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from twisted.internet import defer, reactor
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer

from base import frames
from loreweaver.wire import held_writes, hub, round_clock, self_update, shutdown
from loreweaver.wire.consumers import ADMITTED, OVERSIZE_ANSWER, RESTART_CLOSE_CODE, STALLED, WRITER
from loreweaver.wire.media_channel import HEADER_LIMIT
from loreweaver.wire.process import (
    keep_the_database_threads_connection,
    report_outages_as_warnings,
    tune_garbage_collection,
)
from loreweaver.wire.protocol.messages import error_message
from loreweaver.wire.seats import encode
from loreweaver.wire.session import PRE_JOIN_LIMIT, TEXT_FRAME_LIMIT
from loreweaver.wire.ws_writes import prepared_text, write_now

log = logging.getLogger(__name__)


@implementer(IPushProducer)
class _Congestion:
    """Twisted tells a push producer when the transport's write buffer is full."""

    def __init__(self) -> None:
        self.paused = False
        self.bytes_while_paused = 0

    def pauseProducing(self) -> None:  # noqa: N802 (Twisted's interface)
        self.paused = True

    def resumeProducing(self) -> None:  # noqa: N802
        self.paused = False
        self.bytes_while_paused = 0

    def stopProducing(self) -> None:  # noqa: N802
        self.paused = False


@implementer(IPushProducer)
class _Drain:
    """Whether an HTTP response's socket can take more: Twisted pauses a request's
    producer when the transport's write buffer is full and resumes it once drained."""

    def __init__(self) -> None:
        self.flowing = asyncio.Event()
        self.flowing.set()

    def pauseProducing(self) -> None:  # noqa: N802 (Twisted's interface)
        self.flowing.clear()

    def resumeProducing(self) -> None:  # noqa: N802
        self.flowing.set()

    def stopProducing(self) -> None:  # noqa: N802 (the connection is gone: stop waiting)
        self.flowing.set()


def _drain_of(request: WebRequest, message: dict) -> _Drain | None:
    """What to wait on after handing daphne this piece of an HTTP response (None: the
    last piece). daphne writes every piece into Twisted's buffer at once, so a slow
    reader of a streamed download (a room backup of gigabytes) would otherwise have the
    whole response held in memory; the response's next piece waits until it drained."""
    if request.channel is None:  # the connection is gone: daphne drops the piece
        return None
    more = message.get("more_body", False)
    drain = getattr(request, "loreweaver_drain", None)
    if more and drain is None:
        drain = request.loreweaver_drain = _Drain()
        request.registerProducer(drain, True)
        if request.channel._waitingForTransport:  # already full before we listened
            drain.pauseProducing()
    if not more and drain is not None and request.producer is not None:
        request.unregisterProducer()  # a finished request must have none left
    return drain if more else None


class BoundedWebSocketProtocol(WebSocketProtocol):
    """daphne's WebSocket protocol with bounds on what a client may cost the server.

    - A slow reader may owe at most TRPG_TUI__SEND_BUFFER_BYTES before it is dropped.
    - Before its join is accepted, a client may send messages of at most
      `session.PRE_JOIN_LIMIT` bytes; after it, text messages up to the control-frame
      limit and binary ones up to the largest media file. A message over its limit is
      answered with `error bad_frame` and the connection closes (1009), before its
      payload is buffered.
    - A text message that is not UTF-8 becomes a `bad_frame` answer, not a dropped TCP
      connection: it reaches the session with its bad bytes as lone surrogates, which
      the frame parser refuses.
    """

    def connectionMade(self) -> None:  # noqa: N802 (Twisted's hook)
        # Per-connection options, set before autobahn copies the factory's defaults.
        self.utf8validateIncoming = False
        self.failByDrop = False  # an oversized message gets a close frame, after our error
        self.text_limit = self.binary_limit = PRE_JOIN_LIMIT
        self.oversize_answer: bytes | None = None  # the carrier's own, when it has one
        self.maxMessagePayloadSize = self.maxFramePayloadSize = PRE_JOIN_LIMIT
        super().connectionMade()

    def onOpen(self) -> None:  # noqa: N802 (autobahn's hook)
        super().onOpen()
        self.congestion = _Congestion()
        # The HTTP channel that handed this socket over is still registered as its
        # producer; after the upgrade it has nothing left to produce, so take its place.
        if self.transport.producer is not None:
            self.transport.unregisterProducer()
        self.transport.registerProducer(self.congestion, True)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 (Twisted's hook)
        # autobahn's own first formats three values for a debug line, whether or not
        # debug logging is on: a fiftieth of the server's CPU under a room's rolls.
        self._dataReceived(data)

    def onMessageBegin(self, isBinary: bool) -> None:  # noqa: N802, N803 (autobahn's hook)
        # autobahn checks each frame's declared length against these before reading it.
        limit = self.binary_limit if isBinary else self.text_limit
        self.maxMessagePayloadSize = self.maxFramePayloadSize = limit
        super().onMessageBegin(isBinary)

    def _max_message_size_exceeded(self, msg_size: int, max_msg_size: int, reason: str) -> None:
        answer = self.oversize_answer
        if answer is None:
            detail = f"a message here is at most {max_msg_size // 1024} KiB"
            answer = encode(frames.error("bad_frame", error_message("bad_frame", detail=detail))).encode(
                "utf-8"
            )
        self.sendMessage(answer, False)
        super()._max_message_size_exceeded(msg_size, max_msg_size, reason)

    def onMessage(self, payload: bytes, isBinary: bool) -> None:  # noqa: N802, N803
        if isBinary or self.muted:
            super().onMessage(payload, isBinary)
            return
        # daphne's own strict decode would raise on bad UTF-8 and drop the connection.
        self.last_ping = time.time()
        text = payload.decode("utf-8", "surrogateescape")
        self.application_queue.put_nowait({"type": "websocket.receive", "text": text})

    def handle_reply(self, message: dict) -> None:
        if message.get("type") == ADMITTED["type"]:
            self.text_limit, self.binary_limit = TEXT_FRAME_LIMIT, _largest_media_message()
            return
        if message.get("type") == OVERSIZE_ANSWER:
            self.oversize_answer = message["text"].encode("utf-8")
            return
        if message.get("type") == WRITER:
            message["consumer"].write_now = self.write_text_now
            return
        if message.get("type") == "websocket.accept" and message.get("headers"):
            # daphne drops an accept's headers (ASGI lets an application send them: a
            # guest's cookie, say); autobahn writes a (subprotocol, headers) answer.
            headers: dict[str, list[str]] = {}
            for name, value in message["headers"]:
                headers.setdefault(name.decode("latin-1"), []).append(value.decode("latin-1"))
            self.handshake_deferred.callback((message.get("subprotocol"), headers))
            del self.handshake_deferred
            return
        super().handle_reply(message)

    def write_text_now(self, text: str) -> bool:
        """Write one text frame now, from the event loop's thread, as daphne would have
        on the `websocket.send` reply (Twisted and asyncio share that loop here); false,
        and nothing written, once the socket is no longer open."""
        if self.state != self.STATE_OPEN:
            return False
        connection = self.server.connections.get(self)
        if connection is None or connection.get("disconnected"):
            return False
        self.serverSend(text, False)
        return True

    def onClose(self, wasClean: bool, code: int | None, reason: str | None) -> None:  # noqa: N802, N803
        # A client dropped for not reading: the application hears why, and how much it
        # was owed, before daphne's own disconnect message.
        stalled = getattr(self, "stalled_bytes", None)
        if stalled is not None and not self.muted and hasattr(self, "application_queue"):
            self.application_queue.put_nowait({"type": STALLED, "bytes_owed": stalled})
        super().onClose(wasClean, code, reason)

    def serverClose(self, code: int | None = None) -> None:  # noqa: N802 (daphne's hook)
        # autobahn lets an application send only 1000 and 3000-4999, but a server going
        # down for a restart says so with the registered 1012 (clients reconnect on it).
        if code == RESTART_CLOSE_CODE and self.state == self.STATE_OPEN:
            self.sendCloseFrame(code=code, reasonUtf8=b"server restarting")
            return
        super().serverClose(code)

    def serverSend(self, content: str | bytes, binary: bool = False) -> None:  # noqa: N802
        congestion = getattr(self, "congestion", None)
        if congestion is not None and congestion.paused:
            congestion.bytes_while_paused += len(content)
            if congestion.bytes_while_paused > settings.TRPG_SEND_BUFFER_BYTES:
                # The consumer logs it with the member (`websocket.stalled`, below).
                self.stalled_bytes = congestion.bytes_while_paused
                self.dropConnection(abort=True)
                return
        if not binary and self.state == self.STATE_OPEN:
            # A room's members share one frame of the same text (`ws_writes`).
            self.sendPreparedMessage(prepared_text(content))
            return
        super().serverSend(content, binary)

    def sendData(self, data: bytes, sync: bool = False, chopsize: int | None = None) -> None:  # noqa: N802
        # A room's batch being delivered: kept, and written with the rest of the batch's
        # frames for this member in one piece (`held_writes`).
        if held_writes.hold(self, data, self._send_now):
            return
        # On the socket now when nothing waits before it; the rest as autobahn writes it.
        if not (sync or chopsize or self.send_queue):
            data = write_now(self.transport, data)
            if not data:
                return
        super().sendData(data, sync, chopsize)

    def _send_now(self, data: bytes) -> None:
        """Write what was held for this connection (`held_writes`)."""
        if self.transport is None or not self.transport.connected or self.transport.disconnecting:
            return  # dropped meanwhile (a slow reader): what it was owed goes with it
        try:
            self.sendData(data)
        except Exception as exc:  # as a failed write of the session's own: the connection goes
            log.info("held write failed (%r); closing", exc)
            self.dropConnection(abort=True)


def _largest_media_message() -> int:
    return max(settings.TRPG_MEDIA_AUDIO_MAX, settings.TRPG_MEDIA_IMAGE_MAX) + HEADER_LIMIT + 4


class TableServer(Server):
    """daphne's server, with the bounded protocol, the Iroh carrier and a ready callback."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        on_ready: Callable[[str], None],
        iroh_carrier: object | None = None,
    ) -> None:
        # The project's ASGI application (settings.ASGI_APPLICATION), which routes to
        # this layer's consumer: looked up, not imported, as the project sits above.
        application = get_default_application()

        super().__init__(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            signal_handlers=True,
            websocket_timeout=-1,
            # A media message carries a whole file (the protocol's WebSocket framing);
            # text frames are capped far lower by the session.
            websocket_max_message_size=_largest_media_message(),
            websocket_max_frame_size=_largest_media_message(),
            server_name="loreweaver-django",
        )
        self._host = host
        self._on_ready = on_ready
        self._iroh = iroh_carrier
        self._background: list[asyncio.Task] = []
        self._ports: list = []
        self.listen_failure = ""  # why the WebSocket port could not be opened, if it could not

    async def handle_reply(self, protocol: object, message: dict) -> None:
        """daphne's, and a streamed HTTP response waits for its reader (`_drain_of`)."""
        drain = None
        if message.get("type") == "http.response.body" and isinstance(protocol, WebRequest):
            drain = _drain_of(protocol, message)
        await super().handle_reply(protocol, message)
        if drain is not None:
            await drain.flowing.wait()

    def run(self) -> None:
        tune_garbage_collection()
        keep_the_database_threads_connection()
        reactor.callWhenRunning(self._started)
        super().run()

    def _started(self) -> None:
        self.ws_factory.protocol = BoundedWebSocketProtocol
        # A TCP connection that sends no complete request (it never upgrades to a
        # WebSocket) is closed as a silent WebSocket would be; Twisted's default is a
        # minute. Once a request is in, this idle timeout is off until it completes.
        self.http_factory.timeOut = settings.TRPG_JOIN_TIMEOUT
        # An update's restart stops the way SIGTERM does (`kill_all_applications`).
        self_update.plan.stop = reactor.stop
        loop = asyncio.get_event_loop()
        report_outages_as_warnings(loop)
        self._background.append(loop.create_task(hub.Upkeep().run()))
        self._background.append(loop.create_task(round_clock.RoundClock().run()))
        if self._iroh is not None:
            self._background.append(loop.create_task(self._iroh.serve()))

    def listen_error(self, failure: object) -> None:
        """The port could not be opened (it is in use, say): stop, and let `serve` say so."""
        self.listen_failure = failure.getErrorMessage()
        super().listen_error(failure)

    def listen_success(self, port: object) -> None:
        super().listen_success(port)
        self._ports.append(port)
        actual = port.getHost().port
        self_update.plan.websocket_bound(actual)
        host = self._host if self._host not in ("0.0.0.0", "::") else "127.0.0.1"
        self._on_ready(f"{host}:{actual}")

    def kill_all_applications(self) -> defer.Deferred:
        """Before the reactor stops (SIGTERM, Ctrl-C): stop gracefully first, then let
        daphne cancel the connections that are left."""
        return defer.Deferred.fromFuture(asyncio.ensure_future(self._stop_gracefully()))

    async def _stop_gracefully(self) -> None:
        for port in self._ports:
            port.stopListening()
        if self._iroh is not None:
            self._iroh.stop_accepting()
        try:
            await shutdown.drain()
        except Exception:
            log.exception("stopping: the graceful part failed; closing what is left")
        # Only now: the heartbeat keeps this process's turns and members alive meanwhile.
        for task in self._background:
            task.cancel()
        if self._iroh is not None:
            await self._iroh.close()
        await super().kill_all_applications().asFuture(asyncio.get_running_loop())
