"""A small SideQuest client for the carrier's tests (docs/sidequest.md): the contract's
`{type, payload, player_id}` messages over a real socket on `/ws`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

import websockets

TIMEOUT = 15.0


class Gone(Exception):
    """The server closed the socket."""


def ws_url(server: Any, key: str | None = None) -> str:
    """The server's SideQuest endpoint (`?key=` when given)."""
    url = server.ws_url.rstrip("/") + "/ws"
    return url + (f"?key={key}" if key else "")


def http_json(server: Any, path: str, body: dict | None = None) -> tuple[int, dict]:
    """(status, JSON) of a GET, or of a JSON POST as the current client's lobby sends it."""
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + path
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


class Browser:
    """What a browser keeps between visits to `/ws`: the cookies the server set (a
    guest's seat is bound to one, rooms/guests.py)."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    async def connect(self, url: str, *, source: str | None = None) -> websockets.ClientConnection:
        """Open a socket to `url` carrying this browser's cookies, and keep what it sets
        (from the loopback address `source`, e.g. 127.0.0.2, to be another address)."""
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        extra = {"local_addr": (source, 0)} if source else {}
        socket = await websockets.connect(
            url, max_size=None, open_timeout=TIMEOUT, additional_headers=sent, **extra
        )
        for header in socket.response.headers.get_all("Set-Cookie"):
            name, _sep, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return socket


class SideQuestClient:
    """One socket on `/ws`; every message received must have the contract's envelope."""

    def __init__(self, socket: websockets.ClientConnection) -> None:
        self.socket = socket
        self.seen: list[dict] = []

    @classmethod
    async def open(
        cls, server: Any, key: str | None = None, browser: Browser | None = None, source: str | None = None
    ) -> SideQuestClient:
        """A socket from `browser` (a fresh one, with no cookie, by default)."""
        return cls(await (browser or Browser()).connect(ws_url(server, key), source=source))

    async def __aenter__(self) -> SideQuestClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.socket.close()

    @property
    def close_code(self) -> int | None:
        return self.socket.close_code

    async def send(self, kind: str, payload: dict) -> None:
        """Send one message (nothing when the server already closed: `recv` says so)."""
        await self.send_raw(json.dumps({"type": kind, "payload": payload, "player_id": ""}))

    async def send_raw(self, text: str | bytes) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.socket.send(text)

    async def connect(self, name: str, key: str | None = None, world: str = "") -> None:
        payload: dict = {"event": "connect", "player_name": name, "genre": "coc7", "world": world}
        if key is not None:
            payload["key"] = key
        await self.send("SESSION_EVENT", payload)

    async def connect_by_slug(self, slug: str, name: str, last_seen_seq: int | None) -> None:
        """The current client's connect (sidequest-ui ffa5a44): by the game's slug; only
        the first connect of a freshly loaded page names the last `seq` it has seen."""
        payload: dict = {"event": "connect", "game_slug": slug, "player_name": name}
        if last_seen_seq is not None:
            payload["last_seen_seq"] = last_seen_seq
        await self.send_raw(json.dumps({"type": "SESSION_EVENT", "payload": payload, "player_id": name}))

    async def make_character(self, name: str, origin: str = "A ferry pilot.") -> None:
        """Answer the creation scenes as both clients do (a name, a choice by its 1-based
        index, where they come from) and confirm with "1"; back once it is made."""
        await self.expect("CHARACTER_CREATION", scene_index=0)
        for choice in (name, "1", origin):
            await self.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})
        await self.expect("CHARACTER_CREATION", phase="confirmation")
        await self.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
        await self.expect("CHARACTER_CREATION", phase="complete")

    async def act(self, action: str) -> None:
        await self.send("PLAYER_ACTION", {"action": action})

    async def recv(self, timeout: float = TIMEOUT) -> dict:
        try:
            raw = await asyncio.wait_for(self.socket.recv(), timeout)
        except websockets.ConnectionClosed:
            raise Gone() from None
        received = json.loads(raw)
        assert set(received) == {"type", "payload", "player_id"}, received
        if received["type"] == "ERROR":  # the contract's shape, exactly
            payload = received["payload"]
            assert set(payload) == {"message", "reconnect_required"}, payload
            assert isinstance(payload["message"], str) and isinstance(payload["reconnect_required"], bool)
        self.seen.append(received)
        return received

    async def expect(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict:
        """Skip messages until one of `kind` whose payload has `fields`; its payload."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"no {kind} {fields} within {timeout}s")
            received = await self.recv(remaining)
            payload = received["payload"]
            if received["type"] == kind and all(payload.get(k) == v for k, v in fields.items()):
                return payload

    async def until_end(self) -> list[dict]:
        """Every message up to and including the next NARRATION_END (the end of a turn)."""
        answer = []
        while True:
            received = await self.recv()
            answer.append(received)
            if received["type"] == "NARRATION_END":
                return answer

    async def until_closed(self, timeout: float = TIMEOUT) -> list[dict]:
        """Every message up to the server's close."""
        received = []
        try:
            while True:
                received.append(await self.recv(timeout))
        except Gone:
            return received

    async def joined(self, name: str, key: str | None = None, world: str = "") -> dict:
        """Connect and wait for the contract's answer (`ready` or `connected`)."""
        await self.connect(name, key, world)
        return await self.expect("SESSION_EVENT")


def open_to_any_name(env: Any, room: str) -> None:
    """Open `room` to any name, as the operator does on the console."""
    from loreweaver.testing.servers import _database

    with _database(env) as (connection, mark):
        connection.execute(f"UPDATE rooms_room SET open_to_all = {mark} WHERE name = {mark}", (True, room))
