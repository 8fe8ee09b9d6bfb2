"""The members of `bench/fanout.py`'s rooms, one kind per way a real client plays here.

By default every member is a terminal client over WebSocket. With `--mix`, a fifth of
the members come by each of the other ways, so the load crosses every carrier and
protocol a room holds at once (docs/performance.md, "The mixed room"):

- `websocket`: the terminal client's join over WebSocket (two fifths);
- `iroh`: the same frames over the Iroh carrier, newline-delimited on one stream;
- `sidequest`: the SideQuest web client on `/ws`, with its key: it makes a character
  first (the creation scenes both client generations answer), then sends
  `PLAYER_ACTION`s; others' lines and rolls reach it as `NARRATION`, and its own input
  ends with `NARRATION_END`;
- `browser`: the join the browser table sends (its client name, and a locale), here
  in Chinese, so the room's frames go out in two languages.

A member is read as its client reads it; `Counter`s say which of its messages are
the workload's deliveries and which one is the reply to its own input.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loreweaver.testing.clients import IrohClient  # noqa: E402
from loreweaver.wire.tests.sidequest_client import SideQuestClient  # noqa: E402

PLAIN = ("websocket",)
MIX = ("websocket", "websocket", "iroh", "sidequest", "browser")
JOIN_TIMEOUT = 60.0
READ_TIMEOUT = 600.0

# (the frame, the member's index) -> (is it a delivery, is it the reply to its own input)
Counter = Callable[[dict, int], tuple[bool, bool]]


@dataclass
class Member:
    """One joined member: how to send it an input, read its next message, and leave."""

    carrier: str
    say: Callable[[str], Awaitable[None]]
    recv: Callable[[], Awaitable[dict]]
    close: Callable[[], Awaitable[None]]


def carrier_of(member: int, mix: bool) -> str:
    """The carrier of the room members' `member`th (counted over all rooms)."""
    kinds = MIX if mix else PLAIN
    return kinds[member % len(kinds)]


async def websocket_join(url: str, join_frame: dict, ready_type: str) -> websockets.ClientConnection:
    """A WebSocket connection that sent `join_frame` and was let in (`ready_type` came)."""
    socket = await websockets.connect(url, max_size=None, max_queue=None)
    await socket.send(json.dumps(join_frame))
    while json.loads(await socket.recv())["type"] != ready_type:
        pass
    return socket


async def join(carrier: str, url: str, ticket: str, key: str, name: str, ready_type: str) -> Member:
    """Join as `carrier` with `key` (held by the member called `name`) and wait until the
    join (and, for SideQuest, the character's creation) is through; a server that has
    not let it in within JOIN_TIMEOUT (an older revision without that carrier, say)
    stops the run with a TimeoutError that says so."""
    try:
        async with asyncio.timeout(JOIN_TIMEOUT):
            return await _join(carrier, url, ticket, key, name, ready_type)
    except TimeoutError:
        raise TimeoutError(f"a {carrier} member was not let in within {JOIN_TIMEOUT:g} s") from None


async def _join(carrier: str, url: str, ticket: str, key: str, name: str, ready_type: str) -> Member:
    if carrier == "iroh":
        return await _join_iroh(ticket, key, ready_type)
    if carrier == "sidequest":
        return await _join_sidequest(url, key, name)
    join_frame: dict = {"type": "join", "key": key}
    if carrier == "browser":
        join_frame |= {"locale": "zh", "client": {"name": "loreweaver-browser", "version": "bench"}}
    socket = await websocket_join(url, join_frame, ready_type)

    async def say(text: str) -> None:
        await socket.send(json.dumps({"type": "input", "text": text}))

    async def recv() -> dict:
        return json.loads(await socket.recv())

    return Member(carrier, say, recv, socket.close)


async def _join_iroh(ticket: str, key: str, ready_type: str) -> Member:
    client = await IrohClient.connect(ticket, first={"type": "join", "key": key})
    while (await client.recv(READ_TIMEOUT))["type"] != ready_type:
        pass

    async def say(text: str) -> None:
        await client.send({"type": "input", "text": text})

    async def recv() -> dict:
        return await client.recv(READ_TIMEOUT)

    return Member("iroh", say, recv, client.close)


async def _join_sidequest(url: str, key: str, name: str) -> Member:
    client = await SideQuestClient.open(SimpleNamespace(ws_url=url), key)
    answer = await client.joined(name, key)
    if answer.get("event") == "ready":
        # Back with its character (an earlier workload made it): the story so far is
        # replayed, then the party's status; none of it is this workload's.
        await client.expect("PARTY_STATUS", timeout=JOIN_TIMEOUT)
    else:
        await client.make_character(f"Hero{name}")
        await client.expect("NARRATION_END", timeout=JOIN_TIMEOUT)  # the character (and opening) told

    async def recv() -> dict:
        return await client.recv(READ_TIMEOUT)

    return Member("sidequest", client.act, recv, client.close)


_OTHERS_LINE = re.compile(r"^\S+: member \d+ line \d+$")


def sidequest_counter(workload: str) -> Counter:
    """A SideQuest member's deliveries: for story lines, each other member's line (a
    `NARRATION` "Name: line") and the end of its own (`NARRATION_END`: its own line is
    never told back); for rolls, every roll told (`NARRATION` "Name rolls 1d6: n", its
    own included, in the roller's language while the room chose none), its own input's
    end being the reply it waits for."""

    def lines(message: dict, _member: int) -> tuple[bool, bool]:
        if message["type"] == "NARRATION_END":
            return True, True
        return message["type"] == "NARRATION" and bool(_OTHERS_LINE.match(message["payload"]["text"])), False

    def rolls(message: dict, _member: int) -> tuple[bool, bool]:
        if message["type"] == "NARRATION_END":
            return False, True
        return message["type"] == "NARRATION" and " 1d6: " in message["payload"]["text"], False

    return lines if workload == "lines" else rolls
