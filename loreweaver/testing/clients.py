"""Real protocol clients for the tests: a WebSocket client and an Iroh client.

Both speak the wire exactly as a loreweaver client does and expose the same small
interface, so a test can run the same script over either carrier.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import iroh
import websockets
from iroh import Endpoint, EndpointOptions, EndpointTicket, IrohError, RelayMode

from loreweaver.wire import iroh_bytes

# The test clients hand bytes to the Iroh library as the server does (one copy, not a
# Python loop per byte), so a transfer measures the server, not the client's binding.
iroh_bytes.install()

ALPN = b"loreweaver/tui/1"
DEFAULT_TIMEOUT = 10.0


class Closed(Exception):
    """The server closed the connection."""


class Client:
    """What every test client offers."""

    carrier = ""

    async def send(self, frame: dict | str | bytes) -> None:
        raise NotImplementedError

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def _frames(self, timeout: float, waiting_for: str) -> AsyncIterator[dict]:
        """Frames as they arrive, until `timeout` seconds have passed in all."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"{waiting_for}: nothing within {timeout}s")
            yield await self.recv(remaining)

    async def expect(self, frame_type: str, timeout: float = DEFAULT_TIMEOUT, **fields: Any) -> dict:
        """Skip frames until one of `frame_type` (with `fields`) arrives; return it."""
        async for frame in self._frames(timeout, f"{frame_type} {fields}"):
            if frame.get("type") == frame_type and all(frame.get(k) == v for k, v in fields.items()):
                return frame
        raise AssertionError("unreachable")

    async def collect_until(self, frame_type: str, timeout: float = DEFAULT_TIMEOUT) -> list[dict]:
        """Every frame up to and including the first of `frame_type`."""
        frames = []
        async for frame in self._frames(timeout, frame_type):
            frames.append(frame)
            if frame.get("type") == frame_type:
                return frames
        raise AssertionError("unreachable")

    async def join(self, key: str, **extra: Any) -> list[dict]:
        """Send a join and return every frame up to the closing `ui_manifest`."""
        await self.send({"type": "join", "key": key, **extra})
        return await self.collect_until("ui_manifest")

    async def say(self, text: str) -> None:
        await self.send({"type": "input", "text": text})

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> list[dict]:
        """Read until the server closes the connection; return what arrived first."""
        frames: list[dict] = []
        try:
            async for frame in self._frames(timeout, "the close"):
                frames.append(frame)
        except Closed:
            return frames
        raise AssertionError("unreachable")

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class WsClient(Client):
    """A WebSocket client (`websockets`), one text message per frame."""

    carrier = "ws"

    def __init__(self, socket: websockets.ClientConnection) -> None:
        self.socket = socket

    @classmethod
    async def connect(
        cls, url: str, *, source: str | None = None, headers: dict[str, str] | None = None
    ) -> WsClient:
        """Connect to `url` (from the loopback address `source`, e.g. 127.0.0.2, to be
        another address to the server), sending `headers` with the upgrade request."""
        extra = {"local_addr": (source, 0)} if source else {}
        socket = await websockets.connect(
            url,
            max_size=None,
            max_queue=None,
            open_timeout=DEFAULT_TIMEOUT,
            additional_headers=headers,
            **extra,
        )
        return cls(socket)

    async def send(self, frame: dict | str | bytes) -> None:
        if isinstance(frame, dict):
            frame = json.dumps(frame)
        # After a close the next recv reports it, with whatever arrived before it.
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.socket.send(frame)

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict:
        try:
            message = await asyncio.wait_for(self.socket.recv(), timeout)
        except websockets.ConnectionClosed:
            raise Closed() from None
        if isinstance(message, bytes):
            return {"type": "__binary__", "data": message}
        return json.loads(message)

    async def close(self) -> None:
        await self.socket.close()

    @property
    def close_code(self) -> int | None:
        """The code of the server's close frame (1006 when the TCP connection was
        dropped without one); None while open."""
        return self.socket.close_code

    async def send_raw_text(self, payload: bytes) -> None:
        """Send `payload` as a text message as it is, even when it is not UTF-8."""
        await self.socket.send(payload, text=True)


async def iroh_endpoint(source: str = "127.0.0.1") -> Endpoint:
    """A client's Iroh endpoint on the loopback address `source` (127.0.0.2 and so on
    are other addresses to the server), relays off."""
    return await Endpoint.bind(
        EndpointOptions(
            preset=iroh.preset_n0_disable_relay(),
            relay_mode=RelayMode.disabled(),
            bind_addr=f"{source}:0",
        )
    )


async def iroh_dial(endpoint: Endpoint, ticket: str) -> tuple[iroh.Connection, iroh.BiStream]:
    """A connection from `endpoint` to the server of `ticket`, and its control stream
    (which the server sees once something is written on it).

    Only the ticket's IPv4 addresses are dialled (when it has any): a test's client
    stands for an address of its own by its IPv4 loopback source (`iroh_endpoint`),
    and a path over IPv6 would show every client to the server as `::1`, one address
    sharing one handshake share."""
    address = EndpointTicket.from_string(ticket).endpoint_addr()
    ipv4 = [direct for direct in address.direct_addresses() if not direct.startswith("[")]
    if ipv4:
        address = iroh.EndpointAddr(address.id(), address.relay_url(), ipv4)
    connection = await asyncio.wait_for(endpoint.connect(address, ALPN), DEFAULT_TIMEOUT)
    return connection, await connection.open_bi()


class IrohClient(Client):
    """An Iroh client: dials the ticket, one bi stream of newline-delimited JSON."""

    carrier = "iroh"

    def __init__(self, endpoint: Endpoint, connection: iroh.Connection, stream: iroh.BiStream) -> None:
        self.endpoint = endpoint
        self.connection = connection
        self.stream = stream
        self.sender = stream.send()
        self.receiver = stream.recv()
        self._buffer = bytearray()
        self._eof = False

    @classmethod
    async def connect(
        cls, ticket: str, *, first: dict | str | bytes | None = None, source: str = "127.0.0.1"
    ) -> IrohClient:
        """Dial `ticket` from the loopback address `source`. The server sees the control
        stream once something is written on it, so `first` (normally the join) is
        written right away when given."""
        endpoint = await iroh_endpoint(source)
        connection, stream = await iroh_dial(endpoint, ticket)
        client = cls(endpoint, connection, stream)
        if first is not None:
            await client.send(first)
        return client

    async def send(self, frame: dict | str | bytes) -> None:
        if isinstance(frame, dict):
            frame = json.dumps(frame)
        if isinstance(frame, str):
            frame = frame.encode("utf-8") + b"\n"
        await self.sender.write_all(frame)

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return json.loads(line)
            if self._eof:
                raise Closed()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError("no frame")
            try:
                chunk = await asyncio.wait_for(self.receiver.read(65536), remaining)
            except IrohError:
                self._eof = True
                continue
            if not chunk:
                self._eof = True
            self._buffer += chunk

    async def media_request(self, header: dict, timeout: float = DEFAULT_TIMEOUT) -> dict:
        """Open an extra bi stream, send a media header, return the reply line."""
        stream = await self.connection.open_bi()
        await stream.send().write_all(json.dumps(header).encode() + b"\n")
        await stream.send().finish()
        data = await asyncio.wait_for(stream.recv().read_to_end(1 << 20), timeout)
        return json.loads(data.split(b"\n", 1)[0])

    async def close(self) -> None:
        try:
            self.connection.close(0, b"bye")
        finally:
            await self.endpoint.close()


async def connect(carrier: str, server: Any, *, first: dict | None = None) -> Client:
    """A client of `carrier` ("ws" or "iroh") connected to `server`.

    Over Iroh the first frame is written together with opening the stream (the
    server only sees a stream once it carries data); over WebSocket it is sent
    right after connecting.
    """
    if carrier == "ws":
        client: Client = await WsClient.connect(server.ws_url)
        if first is not None:
            await client.send(first)
        return client
    return await IrohClient.connect(server.ticket, first=first)


async def human_keeper_narrates(server: Any, room: str) -> None:
    """Turn the room's Keeper bot off as its keeper would (`.bot off`), so story lines
    get no Keeper turn: for tests about the lines themselves (replay, ordering, limits)."""
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Host", "keeper"))
        await keeper.say(".bot off")
        await keeper.expect("narrative", speaker="system")


async def settle(client: Client) -> None:
    """Read everything the client has been sent so far."""
    await client.send({"type": "ping", "t": 1})
    await client.collect_until("pong")


async def nothing_of_type(client: Client, frame_type: str, within: float = 0.5) -> None:
    """No frame of `frame_type` arrives up to a ping's pong, nor for `within` seconds
    after it: an absence has no frame to wait for, so the wait after the pong is bounded."""
    await client.send({"type": "ping", "t": 7})
    while True:
        frame = await client.recv(timeout=10)
        assert frame["type"] != frame_type, frame
        if frame["type"] == "pong":
            break
    try:
        while True:
            frame = await client.recv(timeout=within)
            assert frame["type"] != frame_type, frame
    except (TimeoutError, Closed):
        return


async def system_answer(client: Client, line: str) -> str:
    """Say `line` (a dot command) and return the system's answer to it."""
    await client.say(line)
    return (await client.expect("narrative", speaker="system"))["text"]


async def state_where(client: Client, test: Callable[[dict], bool], timeout: float = DEFAULT_TIMEOUT) -> dict:
    """The first `state` frame that passes `test` (earlier ones are skipped)."""
    async for frame in client._frames(timeout, "a state"):
        if frame.get("type") == "state" and test(frame):
            return frame
    raise AssertionError("unreachable")


async def state_now(client: Client) -> dict:
    """The room's state as it stands now: what the client was sent so far is read, then
    `.st` is answered (its sheet, a system line) and a fresh `state` follows.

    The answer is awaited first: on a hosted server a `state` from an earlier change
    may come through the room bus after the `pong` of `settle`, and taking it for the
    answer would leave the sheet line unread for the next `system_answer`."""
    await settle(client)
    await client.say(".st")
    await client.expect("narrative", speaker="system")
    return await client.expect("state")


async def ask(client: Client, frame: dict, reply: str, timeout: float = 20) -> dict:
    """Send `frame` and return the first frame of type `reply` that follows."""
    await client.send(frame)
    return await client.expect(reply, timeout=timeout)


async def until_idle(client: Client, timeout: float = 20) -> list[dict]:
    """Every frame up to and including the `turn_status idle` that ends a Keeper turn."""
    frames = []
    while True:
        frame = await client.recv(timeout)
        frames.append(frame)
        if frame["type"] == "turn_status" and frame["status"] == "idle":
            return frames


def vitals(state: dict) -> dict[str, int]:
    """A `state` frame's character resources (HP, SAN, ...) by id."""
    return {resource["id"]: resource["value"] for resource in state["character"]["resources"]}


def turn_shape(frames: list[dict]) -> list[str]:
    """A Keeper turn's frames as short labels (`busy`, `delta`, `narrative:kp`,
    `busy:dice:1`, `dice:check`, `idle`), consecutive deltas folded into one."""
    labels: list[str] = []
    for frame in frames:
        kind = frame["type"]
        if kind == "narrative_delta":
            label = "delta"
        elif kind == "narrative":
            label = f"narrative:{frame['speaker']}"
        elif kind == "turn_status":
            label = f"{frame['status']}" + (
                f":{frame['activity']}:{frame['round']}" if "activity" in frame else ""
            )
        elif kind == "dice":
            label = f"dice:{frame['kind']}"
        elif kind == "media":
            label = "media"
        else:
            continue
        if not (labels and labels[-1] == label == "delta"):
            labels.append(label)
    return labels


@contextlib.asynccontextmanager
async def keeper_and_player(server: Any, room: str, player_name: str = "Player") -> AsyncIterator[tuple]:
    """A keeper (Kay) and a player at the room's table over WebSocket, both joined."""
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
    ):
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await player.join(server.env.mint(room, player_name))
        yield keeper, player


@contextlib.asynccontextmanager
async def two_keepers_and_a_player(server: Any, room: str) -> AsyncIterator[tuple]:
    """Two keepers, Kay over WebSocket and Kim over Iroh, and a player, Pat, over
    WebSocket, all joined at the room's table."""
    kay, kim, pat = await connect("ws", server), await connect("iroh", server), await connect("ws", server)
    try:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await kim.join(server.env.mint(room, "Kim", "keeper"))
        await pat.join(server.env.mint(room, "Pat"))
        yield kay, kim, pat
    finally:
        for client in (kay, kim, pat):
            await client.close()
