"""Values the server would have to convert (a 310-digit number, a lone surrogate, NUL,
text that is not UTF-8) are refused as `bad_frame` where they arrive: before the join
the connection closes cleanly, after it only the frame is lost (docs/operations.md,
"Hostile input")."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import WsClient, connect
from loreweaver.testing.servers import database_snapshot, dedicated_server

HUGE_PING = '{"type": "ping", "t": ' + "9" * 310 + "}"
CAP = 3


async def _bad_frame_then_close(carrier, server, first):
    client = await connect(carrier, server, first=first)
    try:
        frames = await client.wait_closed()
    finally:
        await client.close()
    assert [(f["type"], f.get("code")) for f in frames] == [("error", "bad_frame")]
    return client


async def test_a_huge_number_before_join_is_a_bad_frame_and_a_clean_close(server, carrier):
    client = await _bad_frame_then_close(carrier, server, HUGE_PING)
    if carrier == "ws":
        assert client.close_code == 1000


async def test_a_huge_number_after_join_costs_only_that_frame(server, room, carrier):
    async with await connect(carrier, server) as client:
        await client.join(server.env.mint(room, "Counter"))
        for huge in (HUGE_PING, '{"type": "ping", "t": 1e400}', '{"type": "ping", "t": -1e999}'):
            await client.send(huge)
            assert (await client.expect("error"))["code"] == "bad_frame"
        await client.send({"type": "ping", "t": 7})
        assert (await client.expect("pong"))["t"] == 7


async def test_a_lone_surrogate_or_nul_is_refused_and_never_reaches_the_room(server, room, carrier):
    async with await connect(carrier, server) as writer, await connect(carrier, server) as watcher:
        await writer.join(server.env.mint(room, "Writer"))
        await watcher.join(server.env.mint(room, "Watcher"))
        for text in (
            '{"type": "input", "text": "surrogate-probe \\ud800 text"}',
            '{"type": "input", "text": "a\\u0000b"}',
        ):
            await writer.send(text)
            refused = await writer.expect("error")
            assert refused["code"] == "bad_frame" and refused["message"]
        await writer.say("plain words")
        assert (await watcher.expect("narrative"))["text"] == "plain words"
    stored = repr(database_snapshot(server.env))
    # Words no random key or id can hold ("odd" once matched a key's shown prefix).
    assert "a\\x00b" not in stored and "surrogate-probe" not in stored


async def test_text_that_is_not_utf8_is_a_bad_frame_not_a_dropped_connection(server, room):
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(server.env.mint(room, "Bytes"))
        await client.send_raw_text(
            b'{"type": "input", "text": "\\xff\\xfe broken"}'.replace(b"\\xff\\xfe", b"\xff\xfe")
        )
        assert (await client.expect("error"))["code"] == "bad_frame"
        await client.send({"type": "ping", "t": 3})
        assert (await client.expect("pong"))["t"] == 3
    before_join = await WsClient.connect(server.ws_url)
    await before_join.send_raw_text(b'{"type": "join", "key": "\xc3"}')
    frames = await before_join.wait_closed()
    assert [(f["type"], f.get("code")) for f in frames] == [("error", "bad_frame")]
    assert before_join.close_code == 1000  # a close frame, not a dropped TCP connection


capped_server = dedicated_server(TRPG_TUI__MAX_CONNECTIONS=str(CAP))


async def test_hostile_numbers_never_use_up_the_connection_slots(capped_server, room, carrier):
    env = capped_server.env
    for _ in range(CAP * 2):
        await _bad_frame_then_close(carrier, capped_server, HUGE_PING)
        async with await connect(carrier, capped_server) as joined:
            await joined.join(env.mint(room, "Passing"))
            await joined.send(HUGE_PING)
            await joined.expect("error", code="bad_frame")
    keys = [env.mint(room, f"Player {n}") for n in range(CAP)]
    clients = [await connect(carrier, capped_server) for _ in keys]
    try:
        joins = await asyncio.gather(*(client.join(key) for client, key in zip(clients, keys, strict=True)))
        assert [frames[0]["type"] for frames in joins] == ["welcome"] * CAP
        last = await clients[-1].expect("presence", online=CAP)
        assert sorted(p["name"] for p in last["players"]) == [f"Player {n}" for n in range(CAP)]
    finally:
        for client in clients:
            await client.close()
