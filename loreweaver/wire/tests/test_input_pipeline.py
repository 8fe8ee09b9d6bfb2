"""What happens to an `input` (docs/decisions.md, "Turns and commands")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, connect
from loreweaver.testing.servers import dedicated_server


async def _next_non_state(client):
    while True:
        frame = await client.recv()
        if frame["type"] not in ("state", "presence"):
            return frame


async def test_an_input_over_4000_characters_is_refused_and_not_broadcast(server, room, carrier):
    key = server.env.mint(room, "Long")
    other_key = server.env.mint(room, "Other")
    async with await connect(carrier, server) as client, await WsClient.connect(server.ws_url) as other:
        await client.join(key)
        await other.join(other_key)
        await client.say("x" * 4001)
        error = await client.expect("error")
        assert error["code"] == "input_too_long"
        await client.say("y" * 4000)  # exactly at the cap is fine
        at_cap = await other.expect("narrative")
    assert at_cap["text"] == "y" * 4000, "the other member never saw the refused line"


async def test_an_empty_or_blank_input_is_ignored(server, room, carrier):
    key = server.env.mint(room, "Blank")
    async with await connect(carrier, server) as client:
        await client.join(key)
        for text in ["", "   ", "\n\t"]:
            await client.say(text)
        await client.say("now something")
        assert (await _next_non_state(client))["text"] == "now something"


async def test_an_unknown_dot_command_is_answered_privately(server, room, carrier):
    key = server.env.mint(room, "Typo")
    watcher_key = server.env.mint(room, "Watch")
    async with await connect(carrier, server) as client, await WsClient.connect(server.ws_url) as watcher:
        await client.join(key)
        await watcher.join(watcher_key)
        await client.say(".rool 1d20")
        echo = await _next_non_state(client)
        reply = await _next_non_state(client)
        assert echo["speaker"] == "player" and echo["text"] == ".rool 1d20"
        assert reply["speaker"] == "system" and "rool" in reply["text"]
        await client.say("。未知 指令")  # full-width prefix, CJK word
        await client.expect("narrative", speaker="player", text="。未知 指令")
        await client.say("... I wait")  # dots alone are ordinary play
        heard = await _next_non_state(watcher)
    assert heard["text"] == "... I wait", "the watcher saw neither command nor its reply"


async def test_an_unknown_command_reply_follows_the_viewers_locale(server, room):
    key = server.env.mint(room, "Zh")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key, locale="zh")
        await client.say(".xyz")
        reply = await client.expect("narrative", speaker="system")
    assert "未知指令" in reply["text"]


limited_server = dedicated_server(TRPG_RATE__REFILL_SECONDS="60")


async def test_a_sixth_quick_input_is_rate_limited_and_leaves_no_trace(limited_server, carrier):
    key = limited_server.env.mint(f"limits-{carrier}", "Rapid")
    watcher_key = limited_server.env.mint(f"limits-{carrier}", "Calm")
    async with (
        await connect(carrier, limited_server) as client,
        await WsClient.connect(limited_server.ws_url) as watcher,
    ):
        await client.join(key)
        await watcher.join(watcher_key)
        for n in range(6):
            await client.say(f"quick {n}")
        error = await client.expect("error")
        assert error["code"] == "rate_limited"
        # The Keeper answers each line in turn; the players' lines are the five let through.
        heard = [(await watcher.expect("narrative", speaker="player"))["text"] for _ in range(5)]
        assert heard == [f"quick {n}" for n in range(5)]
        await watcher.send({"type": "ping", "t": 2})
        rest = await watcher.collect_until("pong")
    assert "quick 5" not in [f.get("text") for f in rest], "the limited line was never broadcast"


async def test_the_room_bucket_limits_a_room_of_many_members(limited_server):
    room = "limits-room"
    keys = [limited_server.env.mint(room, f"P{n}") for n in range(6)]
    clients = [await WsClient.connect(limited_server.ws_url) for _ in keys]
    try:
        for client, key in zip(clients, keys, strict=True):
            await client.join(key)
        for n, client in enumerate(clients[:-1]):  # one line each: no member bucket runs dry
            await client.say(f"hello {n}")
            await client.expect("narrative", text=f"hello {n}")
        await clients[-1].say("one more")  # ... but the room's does
        error = await clients[-1].expect("error")
        assert error["code"] == "rate_limited"
    finally:
        for client in clients:
            await client.close()
