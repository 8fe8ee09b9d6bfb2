"""What a connection without a valid key can cost the server: one small message, a
few seconds, and a slowly growing wait for every wrong key (docs/operations.md,
"Hostile input")."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time

import websockets
from iroh import IrohError

from loreweaver.testing.clients import Closed, IrohClient, WsClient, connect
from loreweaver.testing.servers import dedicated_server

MIB = 1024 * 1024

# Long enough for a loaded machine's client to start three 100 MiB messages at once
# (with 4 s, the last one's first bytes once came after the join timeout).
JOIN_TIMEOUT = 8
# Two wrong keys are free here; then the answers wait half a second, one second, two...
FREE_WRONG_KEYS = 2
FIRST_WAIT = 0.5


def wait_of(wrong_keys: int) -> float:
    """How long the answer to this address's `wrong_keys`-th wrong key waits at least."""
    return 0.0 if wrong_keys <= FREE_WRONG_KEYS else FIRST_WAIT * 2 ** (wrong_keys - FREE_WRONG_KEYS - 1)


limits_server = dedicated_server(
    TRPG_TUI__JOIN_TIMEOUT=str(JOIN_TIMEOUT), TRPG_RATE__BAD_KEYS_FREE=str(FREE_WRONG_KEYS)
)


async def _send_huge_text(url: str, size: int) -> tuple[list[dict], int | None]:
    message = ('{"type": "join", "key": "' + "k" * size + '"}').encode()  # made before the clock starts
    # Uncompressed, so the message's true size is in its first frame header.
    client = WsClient(await websockets.connect(url, max_size=None, compression=None))
    with contextlib.suppress(websockets.ConnectionClosed):  # the server may close mid-message
        await client.socket.send(message, text=True)
    try:
        frames = await client.wait_closed()
    except Closed:
        frames = []
    return frames, client.close_code


async def test_a_big_message_before_join_is_refused_before_it_is_held(limits_server):
    before = limits_server.rss()
    results = await asyncio.gather(*(_send_huge_text(limits_server.ws_url, 100 * MIB) for _ in range(3)))
    for frames, close_code in results:
        assert [(f["type"], f.get("code")) for f in frames] == [("error", "bad_frame")]
        assert close_code == 1009  # message too big
    # Three 100 MiB messages were sent; the server held none of them.
    assert limits_server.rss() - before < 48 * MIB


async def test_a_long_line_before_join_is_refused_over_iroh(limits_server):
    client = await IrohClient.connect(limits_server.ticket)
    with contextlib.suppress(IrohError):  # the server may close while the line is still going out
        await client.send({"type": "join", "key": "k" * (256 * 1024)})
    frames = await client.wait_closed()
    await client.close()
    assert [(f["type"], f.get("code")) for f in frames] == [("error", "bad_frame")]


async def test_a_tcp_connection_that_never_upgrades_is_closed_after_the_join_timeout(limits_server):
    host, port = limits_server.ws_url.removeprefix("ws://").rstrip("/").rsplit(":", 1)
    loop = asyncio.get_running_loop()
    with socket.create_connection((host, int(port))) as silent:
        silent.setblocking(False)
        started = time.monotonic()
        assert await asyncio.wait_for(loop.sock_recv(silent, 1), 30) == b""
    assert time.monotonic() - started < 2 * JOIN_TIMEOUT


async def _answer_time(url: str, key: str) -> tuple[str, float]:
    started = time.monotonic()
    async with await WsClient.connect(url) as client:
        await client.send({"type": "join", "key": key})
        first = await client.recv(timeout=30)
    return first.get("code", first["type"]), time.monotonic() - started


async def test_wrong_keys_wait_longer_each_time_but_a_right_key_never_waits(limits_server, room):
    right = limits_server.env.mint(room, "Rightful")
    near_miss = right[:-1] + ("A" if right[-1] != "A" else "B")
    answers = [await _answer_time(limits_server.ws_url, key) for key in ("wrong-1", "wrong-2", "wrong-3")]
    answers.append(await _answer_time(limits_server.ws_url, near_miss))
    assert [code for code, _ in answers] == ["bad_key"] * 4
    # The third and fourth wrong keys from this address wait, near miss or not.
    assert answers[2][1] >= wait_of(3) and answers[3][1] >= wait_of(4)

    code, took = await _answer_time(limits_server.ws_url, right)
    assert code == "welcome" and took < wait_of(5)
    async with await connect("iroh", limits_server) as over_iroh:
        started = time.monotonic()
        assert (await over_iroh.join(right))[0]["type"] == "welcome"
        assert time.monotonic() - started < wait_of(5)
