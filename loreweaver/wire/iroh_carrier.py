"""The Iroh carrier: peer-to-peer QUIC, ALPN `loreweaver/tui/1`.

Per connection, the first bidirectional stream carries control frames as
newline-delimited compact JSON; every further bidirectional stream is one media
transfer. Framing only: control lines go to the shared `SessionCore`, media headers
to `loreweaver.wire.media_channel`.

The endpoint's secret key is kept in the data dir and the endpoint binds fixed UDP
ports by default (`DEFAULT_BIND`, and its IPv6 counterpart), and the ticket carries only
addresses of sockets bound where they were asked to be, so the ticket (the endpoint's
id and its addresses) stays the same across restarts whatever addresses the machine
has: an invitation sent yesterday still reaches it on a LAN without relays.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
from collections.abc import Callable
from pathlib import Path

import iroh
from iroh import (
    Endpoint,
    EndpointAddr,
    EndpointOptions,
    EndpointTicket,
    IrohError,
    RelayMode,
    SecretKey,
)

from loreweaver.wire import iroh_bytes, media_channel, self_update
from loreweaver.wire.session import PRE_JOIN_LIMIT, SessionCore

log = logging.getLogger(__name__)
iroh_bytes.install()

ALPN = b"loreweaver/tui/1"
LINE_LIMIT = 1024 * 1024
READ_CHUNK = 64 * 1024
# How long a closing connection waits for the client to acknowledge its last frame.
FLUSH_TIMEOUT = 3.0
# The least time a new connection is given to open its control stream. A `join_timeout`
# error can only be written on that stream, so a short join timeout on a busy host would
# otherwise close a connection that had not yet been heard, with nothing said; the join
# deadline proper starts once the stream is open.
STREAM_GRACE = 2.0
SECRET_FILE = "iroh-secret.key"
TICKET_FILE = "iroh-ticket.txt"
# Where the endpoint listens when no `TRPG_IROH__BIND` is set (compose publishes it). A
# port someone else holds is left to them: the endpoint takes a free one and says so.
DEFAULT_BIND = "0.0.0.0:4433"


def ipv6_counterpart(bind: str) -> str:
    """The IPv6 address an IPv4 `host:port` implies when `TRPG_IROH__BIND6` is unset:
    every interface for `0.0.0.0`, loopback for a loopback address, at the same port;
    empty for any other host (the endpoint's IPv6 socket then takes a free port, and the
    ticket leaves it out)."""
    host, _, port = bind.rpartition(":")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return ""
    if address.version != 4:
        return ""
    if address.is_unspecified:
        return f"[::]:{port}"
    if address.is_loopback:
        return f"[::1]:{port}"
    return ""


def _family(address: str) -> int:
    """4 or 6: the IP version of a `host:port` (IPv6 hosts come in brackets)."""
    return 6 if address.startswith("[") else 4


class _Preset(iroh.Preset):
    """The n0 preset, with or without relays, plus the IPv6 socket's address: without
    one, Iroh binds IPv6 on a free port, a new one at every start."""

    def __init__(self, *, relay: bool, bind6: str) -> None:
        self.relay = relay
        self.bind6 = bind6

    def apply(self, builder: iroh.EndpointBuilder) -> None:
        if self.relay:
            builder.apply_n0()
        else:
            builder.apply_n0_disable_relay()
        if self.bind6:
            builder.bind_addr(self.bind6)


def load_secret(data_dir: Path) -> bytes:
    """The endpoint's secret key, created once (owner-only) and then reused."""
    path = data_dir / SECRET_FILE
    if path.exists():
        secret = path.read_bytes()
        if len(secret) == 32:
            return secret
        log.warning("%s is not a 32-byte key; making a new one (the ticket changes)", path)
    secret = bytes(SecretKey.generate().to_bytes())
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(secret)
    temporary.replace(path)
    return secret


class LineReader:
    """Splits a byte stream into lines, refusing lines longer than `limit`."""

    def __init__(self, limit: int = LINE_LIMIT) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, chunk: bytes) -> list[bytes | None]:
        """Lines completed by `chunk`; None stands for a line that was too long."""
        lines: list[bytes | None] = []
        self._buffer += chunk
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > self.limit:
                    # Drop what we have and skip to the next newline.
                    if not self._discarding:
                        lines.append(None)
                    self._discarding = True
                    self._buffer.clear()
                return lines
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._discarding:
                self._discarding = False
                continue
            lines.append(None if len(line) > self.limit else line)


class _MediaStream:
    """An Iroh media stream for the shared channel: the body after the header line."""

    def __init__(self, recv: iroh.RecvStream, send: iroh.SendStream, first: bytes) -> None:
        self._recv, self._send, self._first = recv, send, first

    async def read(self) -> bytes:
        if self._first:
            first, self._first = self._first, b""
            return first
        return await self._recv.read(READ_CHUNK) or b""

    async def write(self, data: bytes) -> None:
        await self._send.write_all(data)

    async def finish(self) -> None:
        await self._send.finish()


def _peer_of(connection: iroh.Connection) -> str:
    """The IP address the connection comes from, or its endpoint id when it comes
    through a relay (wrong keys are throttled per peer)."""
    try:
        for path in connection.paths():
            if path.is_selected and path.is_ip:
                host, _, _port = path.remote_addr.rpartition(":")
                return host.strip("[]") or path.remote_addr
        return f"iroh:{connection.remote_id()}"
    except IrohError:
        return "iroh:unknown"


class IrohConnection:
    """One client connection: the control stream plus its media streams."""

    label = "iroh"

    def __init__(self, connection: iroh.Connection) -> None:
        self.connection = connection
        self.session = SessionCore(self)
        self._send: iroh.SendStream | None = None
        self._closed = False
        self._media_tasks: set[asyncio.Task] = set()
        # Until the join is accepted, a line longer than the pre-join cap is refused.
        self._lines = LineReader(PRE_JOIN_LIMIT)
        self.peer = _peer_of(connection)

    def _spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self._media_tasks.add(task)
        task.add_done_callback(self._media_tasks.discard)

    async def run(self, join_timeout: float) -> None:
        """Serve the connection until either side closes it."""
        try:
            # accept_bi returns once the client has written on its first stream.
            control = await asyncio.wait_for(self.connection.accept_bi(), max(join_timeout, STREAM_GRACE))
        except (TimeoutError, IrohError):
            self.connection.close(0, b"no control stream")
            return
        self._send = control.send()
        media = asyncio.create_task(self._accept_media_streams())
        await self.session.open()
        try:
            await self._read_control(control.recv())
        finally:
            media.cancel()
            for task in list(self._media_tasks):
                task.cancel()
            await self.session.closed()
            if not self._closed:
                self._closed = True
                self.connection.close(0, b"")

    async def _read_control(self, recv: iroh.RecvStream) -> None:
        lines = self._lines
        while not self._closed:
            try:
                chunk = await recv.read(READ_CHUNK)
            except IrohError:
                return
            if not chunk:
                return
            for line in lines.feed(chunk):
                if line is None:
                    await self.session.reject_frame(f"a line is longer than {lines.limit} bytes")
                elif line.strip():
                    try:
                        text = line.decode("utf-8")
                    except UnicodeDecodeError:
                        await self.session.reject_frame("a line is not UTF-8")
                        continue
                    await self.session.receive_text(text)

    async def _accept_media_streams(self) -> None:
        while True:
            try:
                stream = await self.connection.accept_bi()
            except IrohError:
                return
            self._spawn(self._serve_media_stream(stream))

    async def _serve_media_stream(self, stream: iroh.BiStream) -> None:
        recv, send = stream.recv(), stream.send()
        buffer = bytearray()
        header: bytes | None = None
        try:
            # The header is the first line; what follows it in the same read is body.
            while (end := buffer.find(b"\n")) < 0 and len(buffer) <= media_channel.HEADER_LIMIT:
                chunk = await recv.read(READ_CHUNK)
                if not chunk:
                    break
                buffer += chunk
            if 0 <= end <= media_channel.HEADER_LIMIT:
                header, body = bytes(buffer[:end]), bytes(buffer[end + 1 :])
            else:
                body = b""
            await self.session.media_stream(header, _MediaStream(recv, send, body))
        except IrohError:
            return

    # --- Carrier ---------------------------------------------------------------------------

    async def admitted(self) -> None:
        """The join was accepted: control lines may now be as long as any frame."""
        self._lines.limit = LINE_LIMIT

    async def send_text(self, text: str) -> None:
        """Write one control frame as a line."""
        await self.send_texts([text])

    async def send_texts(self, texts: list[str]) -> None:
        """Write control frames as lines, in one call into the stream: each call costs
        about as much as its bytes do (docs/performance.md, "The mixed room")."""
        assert self._send is not None
        await self._send.write_all("".join(text + "\n" for text in texts).encode("utf-8"))

    async def send_bytes(self, data: bytes) -> None:
        """Iroh media replies travel on their own streams, never on the control stream."""
        raise NotImplementedError("binary messages are a WebSocket framing")

    async def close(self, reason: bytes = b"") -> None:
        """Finish the control stream, wait until the client has it all, then close."""
        if self._closed:
            return
        self._closed = True
        if self._send is not None:
            try:
                await self._send.finish()
                await asyncio.wait_for(self._send.stopped(), FLUSH_TIMEOUT)
            except (TimeoutError, IrohError):
                pass
        self.connection.close(0, reason)

    async def close_for_restart(self) -> None:
        """Close as `close` does, with the reason "server restarting"."""
        await self.close(b"server restarting")

    async def abort(self) -> None:
        """Close at once, dropping what the client has not read (a stalled reader)."""
        self._closed = True
        self.connection.close(1, b"stalled")


class IrohCarrier:
    """The Iroh endpoint and its accept loop."""

    def __init__(
        self,
        *,
        data_dir: Path,
        relay: bool,
        bind: str = "",
        bind6: str = "",
        join_timeout: float,
        on_ticket: Callable[[str], None] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.relay = relay
        self.bind = bind
        self.bind6 = bind6
        self.join_timeout = join_timeout
        self.on_ticket = on_ticket
        self.endpoint: Endpoint | None = None
        self.ticket = ""
        self._connections: set[IrohConnection] = set()
        self._handlers: set[asyncio.Task] = set()
        self._accepting = True

    async def start(self) -> str:
        """Bind the endpoint, write the ticket file, and return the ticket."""
        self.endpoint, families = await self._bind()
        sockets = self.endpoint.bound_sockets()
        self_update.plan.iroh_bound(
            next((s for s in sockets if _family(s) == 4), sockets[0]),
            next((s for s in sockets if _family(s) == 6), "") if 6 in families else "",
        )
        self.ticket = str(EndpointTicket.from_addr(self._ticket_addr(families)))
        path = self.data_dir / TICKET_FILE
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(self.ticket + "\n")
        temporary.replace(path)
        if self.on_ticket is not None:
            self.on_ticket(self.ticket)
        return self.ticket

    async def _bind_at(self, bind: str, bind6: str) -> Endpoint:
        options = EndpointOptions(
            preset=_Preset(relay=self.relay, bind6=bind6),
            secret_key=load_secret(self.data_dir),
            alpns=[ALPN],
            bind_addr=bind,
        )
        if not self.relay:
            options.relay_mode = RelayMode.disabled()
        return await Endpoint.bind(options)

    async def _bind(self) -> tuple[Endpoint, set[int]]:
        """The bound endpoint and the IP versions whose sockets were bound where asked
        (the ticket carries only those: another socket's port changes at every start)."""
        bind = self.bind or DEFAULT_BIND
        implied = "" if self.bind6 else ipv6_counterpart(bind)
        bind6 = self.bind6 or implied
        try:
            return await self._bind_at(bind, bind6), {_family(bind), *([_family(bind6)] if bind6 else [])}
        except IrohError as exc:
            failure = exc
        if implied:
            # A host without IPv6, or its port taken: the IPv6 socket was only implied.
            try:
                endpoint = await self._bind_at(bind, "")
            except IrohError as exc:
                failure = exc
            else:
                reason = failure.message().splitlines()[-1].strip()
                # A port someone holds is worth a warning; a host without IPv6 (most
                # containers) is not, or every start there would warn.
                log.log(
                    logging.WARNING if "in use" in reason else logging.INFO,
                    "The Iroh endpoint could not bind IPv6 %s (%s): its ticket carries no IPv6 "
                    "address; set TRPG_IROH__BIND6 to a free [host]:port to add one",
                    implied,
                    reason,
                )
                return endpoint, {_family(bind)}
        if self.bind or "in use" not in failure.message():
            raise failure  # an address the operator chose is theirs to free
        log.warning(
            "UDP %s is in use: the Iroh endpoint takes a free port, so its ticket changes "
            "on every start; set TRPG_IROH__BIND to a free host:port to keep it",
            DEFAULT_BIND,
        )
        bind = DEFAULT_BIND.rpartition(":")[0] + ":0"
        families = {4, *([6] if self.bind6 else [])}
        return await self._bind_at(bind, self.bind6), families

    def _ticket_addr(self, families: set[int]) -> EndpointAddr:
        """The endpoint's address with only the direct addresses of the given IP versions."""
        assert self.endpoint is not None
        addr = self.endpoint.addr()
        kept = [a for a in addr.direct_addresses() if _family(a) in families]
        return EndpointAddr(addr.id(), addr.relay_url(), kept)

    async def serve(self) -> None:
        """Accept connections until the endpoint closes."""
        if self.endpoint is None:
            await self.start()
        assert self.endpoint is not None
        while True:
            incoming = await self.endpoint.accept_next()
            if incoming is None:
                return
            if not self._accepting:
                incoming.refuse()
                continue
            task = asyncio.create_task(self._handle(incoming))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    async def _handle(self, incoming: iroh.Incoming) -> None:
        try:
            accepting = await incoming.accept()
            if await accepting.alpn() != ALPN:
                return
            connection = await accepting.connect()
        except IrohError as exc:
            log.info("iroh handshake failed: %s", exc.message())
            return
        handler = IrohConnection(connection)
        self._connections.add(handler)
        try:
            await handler.run(self.join_timeout)
        except Exception:
            log.exception("iroh connection failed")
        finally:
            self._connections.discard(handler)

    def stop_accepting(self) -> None:
        """Refuse new connections (the process is stopping); the open ones go on."""
        self._accepting = False

    async def close(self) -> None:
        """Close every connection and the endpoint."""
        for handler in list(self._connections):
            await handler.abort()
        if self.endpoint is not None:
            await self.endpoint.close()
