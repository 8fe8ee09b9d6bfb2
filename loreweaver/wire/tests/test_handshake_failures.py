"""Handshake failures: the error frame arrives, then the connection closes.

Each case runs 20 times on each carrier: on Iroh the error line must be flushed
before the close (docs/decisions.md, "The handshake"), which a single lucky run would not prove.
"""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.servers import dedicated_server

TRIES = 20


async def _expect_error_then_close(carrier, server, first, code):
    client = await connect(carrier, server, first=first)
    try:
        frames = await client.wait_closed(timeout=10)
    finally:
        await client.close()
    assert [f.get("type") for f in frames] == ["error"], frames
    assert frames[0]["code"] == code
    assert frames[0]["message"]


async def test_an_unknown_key_gets_bad_key_and_is_closed(server, carrier):
    for _ in range(TRIES):
        await _expect_error_then_close(carrier, server, {"type": "join", "key": "no-such-key"}, "bad_key")


async def test_an_empty_key_gets_bad_key(server, carrier):
    await _expect_error_then_close(carrier, server, {"type": "join", "key": ""}, "bad_key")


@pytest.mark.parametrize(
    "first",
    [
        {"type": "input", "text": "hello"},
        {"type": "ping", "t": 1},
        "this is not json",
        "[1, 2, 3]",
        {"type": "join"},
        {"type": "join", "key": 12345},
    ],
    ids=["input", "ping", "not-json", "array", "no-key", "numeric-key"],
)
async def test_a_first_frame_that_is_not_a_valid_join_gets_bad_frame_and_is_closed(server, carrier, first):
    for _ in range(TRIES):
        await _expect_error_then_close(carrier, server, first, "bad_frame")


async def test_a_binary_first_message_gets_bad_frame_over_websocket(server):
    for _ in range(TRIES):
        await _expect_error_then_close("ws", server, b"\x00\x00\x00\x02{}", "bad_frame")


impatient_server = dedicated_server(TRPG_TUI__JOIN_TIMEOUT="0.3")


async def test_no_join_in_time_gets_join_timeout_and_is_closed(impatient_server, carrier):
    # Over Iroh the server sees the control stream once it carries data: a blank line.
    first = "\n" if carrier == "iroh" else None
    # Side by side: each waits out the timeout, and twenty of them at once still each
    # get their error before the close.
    await asyncio.gather(
        *(_expect_error_then_close(carrier, impatient_server, first, "join_timeout") for _ in range(TRIES))
    )


crowded_server = dedicated_server(TRPG_TUI__MAX_CONNECTIONS="2")


async def test_connections_over_the_cap_get_too_many_connections_before_join(crowded_server, carrier):
    key = crowded_server.env.mint("crowded", "Dee")
    # The cap is per process and counts both carriers.
    holders = [await connect("ws", crowded_server), await connect("iroh", crowded_server)]
    for holder in holders:
        await holder.join(key)
    try:
        for _ in range(TRIES):
            # The error arrives before any join is read: send a valid join anyway.
            await _expect_error_then_close(
                carrier, crowded_server, {"type": "join", "key": key}, "too_many_connections"
            )
    finally:
        for holder in holders:
            await holder.close()
