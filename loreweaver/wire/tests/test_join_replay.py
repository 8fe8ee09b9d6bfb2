"""Join replay over the wire."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import IrohClient, WsClient, connect, human_keeper_narrates


async def _say_and_collect(client, texts):
    live = []
    for text in texts:
        await client.say(text)
        live.append(await client.expect("narrative", text=text))
    return live


async def test_a_joiner_gets_the_last_30_lines_with_their_live_ids_and_names(server, room, carrier):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    talker_key = server.env.mint(room, "Tal")
    joiner_key = server.env.mint(room, "Joy")
    async with await WsClient.connect(server.ws_url) as talker:
        await talker.join(talker_key)
        live = await _say_and_collect(talker, [f"line {n}" for n in range(35)])
    async with await connect(carrier, server) as joiner:
        frames = await joiner.join(joiner_key)
    replayed = [f for f in frames if f["type"] == "narrative"]
    assert replayed == live[-30:]
    types = [f["type"] for f in frames]
    # welcome, presence, then the replay, then state and ui_manifest
    # (docs/decisions.md, "What a joiner receives, in order").
    assert types[:2] == ["welcome", "presence"]
    assert types[2:32] == ["narrative"] * 30
    assert types[-2:] == ["state", "ui_manifest"]


async def test_command_echoes_and_answers_are_never_replayed(server, room):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    key = server.env.mint(room, "Cmd")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        await client.say(".nosuchcommand now")
        await client.expect("narrative", speaker="system")
        # An answer the whole table saw is kept for SideQuest pages, not this replay.
        await client.say(".coc Cmd")
        await client.expect("narrative", speaker="system")
        await client.say("a story line")
        await client.expect("narrative", text="a story line")
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(key)
    assert [f["text"] for f in frames if f["type"] == "narrative"] == ["a story line"]


async def test_lines_said_during_a_join_arrive_once_and_in_order(server, room):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    talker_key = server.env.mint(room, "Fast")
    joiner_key = server.env.mint(room, "Late")
    texts = [f"burst {n}" for n in range(80)]
    async with await WsClient.connect(server.ws_url) as talker:
        await talker.join(talker_key)

        async def talk():
            for text in texts:
                await talker.say(text)
                await asyncio.sleep(0)

        talking = asyncio.create_task(talk())
        await talker.expect("narrative", text=texts[10])  # the room is busy when the joiner arrives
        async with await IrohClient.connect(server.ticket) as joiner:
            seen = [f["text"] for f in await joiner.join(joiner_key) if f["type"] == "narrative"]
            while seen[-1] != texts[-1]:
                seen.append((await joiner.expect("narrative"))["text"])
        await talking
    first = texts.index(seen[0])
    assert seen == texts[first:], "every line after the replay window, once, in order"
