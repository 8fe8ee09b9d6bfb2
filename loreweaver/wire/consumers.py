"""The WebSocket carrier: one text message per control frame, binary for media.

Framing only; everything after it is the shared `SessionCore`. The session listens
on its own channel of the layer, so this consumer does not use Channels' built-in
channel (`channel_layer_alias` names no layer).
"""

from __future__ import annotations

from collections.abc import Callable

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer

from loreweaver.wire.seats import log_stalled
from loreweaver.wire.session import SessionCore

# The message that tells our daphne protocol (`loreweaver.wire.server`) a join was accepted, so
# it lifts the pre-join message cap. daphne's own protocol ignores unknown replies.
ADMITTED = {"type": "websocket.loreweaver.admitted"}
# A carrier's own answer to a message over the size limit (its `text`), which our daphne
# protocol then sends instead of a loreweaver `error` before it closes with 1009.
OVERSIZE_ANSWER = "websocket.loreweaver.oversize_answer"
# The message that asks our daphne protocol for its writer of text frames, which the
# session then calls at once instead of sending each frame through Channels' and
# daphne's coroutines (`TableConsumer.write_now`); daphne's own protocol ignores it,
# and the session then writes as before.
WRITER = "websocket.loreweaver.writer"
# What our daphne protocol tells the consumer when it dropped a client that stopped
# reading (with the bytes it was owed), before the disconnect itself.
STALLED = "websocket.stalled"
# RFC 6455's registered "service restart": the server is going down and will be back.
RESTART_CLOSE_CODE = 1012


class WebSocketCarrier(AsyncWebsocketConsumer):
    """What the WebSocket carriers share: the session listens on its own (no layer
    channel), and the client's address for the wrong-key throttle."""

    channel_layer_alias = "__session_listens_itself__"

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Channels' consumer loop for a consumer that listens to one source: each
        message is awaited from daphne's queue and dispatched in turn. Channels' own
        loop (`await_many_dispatch`, made to listen to the client and a layer channel at
        once) wraps every receive in a task and an `asyncio.wait` (about 2 % of a roll's
        server work), and keeps the last message it dispatched until the next arrives
        (a 100 MiB upload, until its connection's next frame)."""
        self.scope = scope
        self.channel_layer = None
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch, without the `close_old_connections` it runs on the sync
        thread before every message: a carrier touches no database itself (the session
        does its database work through `database_sync_to_async`, which closes old
        connections around each call), and that hop was 3 % of a roll's event-loop time
        and a wait behind the turns on the database thread for every message received."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    @property
    def peer(self) -> str:
        """The client's address (its own behind a trusted proxy: loreweaver/ops/forwarded.py)."""
        client = self.scope.get("client")
        return str(client[0]) if client else "unknown"

    async def abort(self) -> None:
        """Close at once (the bounded daphne protocol also drops a stalled socket)."""
        await super().close(code=1008, reason="stalled")

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket; daphne writes queued frames before the close frame."""
        await super().close(code=code if code is not None else 1000, reason=reason)

    async def close_for_restart(self) -> None:
        """Close with 1012 (service restart): clients reconnect, and get the replay."""
        await super().close(code=RESTART_CLOSE_CODE, reason="server restarting")

    async def websocket_stalled(self, message: dict) -> None:
        """The protocol dropped the client for not reading: log who it was."""
        session = getattr(self, "session", None)
        if session is not None:
            log_stalled(session.connection_id, session.seat, frames=0, owed=message.get("bytes_owed", 0))


class TableConsumer(WebSocketCarrier):
    """A loreweaver client connected over WebSocket at `/`."""

    label = "ws"

    # Our daphne protocol's writer of one text frame (`WRITER`): true when written, false
    # when the socket is no longer open (the frame then goes the usual way).
    write_now: Callable[[str], bool] | None = None

    async def connect(self) -> None:
        """Accept, then let the session run the handshake (cap, join deadline)."""
        await self.accept()
        await self.base_send({"type": WRITER, "consumer": self})
        self.session = SessionCore(self)
        await self.session.open()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Hand one message to the session."""
        if text_data is not None:
            await self.session.receive_text(text_data)
        elif bytes_data is not None:
            await self.session.receive_binary(bytes_data)

    async def disconnect(self, code: int) -> None:
        """The client went away."""
        session = getattr(self, "session", None)
        if session is not None:
            await session.closed()

    async def admitted(self) -> None:
        """Lift the pre-join message cap (media messages may now carry whole files)."""
        await self.base_send(ADMITTED)

    async def send_text(self, text: str) -> None:
        """Write one control frame."""
        await self.send(text_data=text)

    async def send_bytes(self, data: bytes) -> None:
        """Write one binary message (a media reply)."""
        await self.send(bytes_data=data)
