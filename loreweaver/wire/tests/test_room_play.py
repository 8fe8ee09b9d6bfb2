"""Members of one room on different carriers see the same lines, ids and presence."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient, WsClient


async def test_a_websocket_member_and_an_iroh_member_see_each_others_lines(server, room):
    ws_key = server.env.mint(room, "Wes")
    iroh_key = server.env.mint(room, "Ira")
    async with await WsClient.connect(server.ws_url) as wes, await IrohClient.connect(server.ticket) as ira:
        await wes.join(ws_key)
        joined = await ira.join(iroh_key)
        presence_seen_by_ira = next(f for f in joined if f["type"] == "presence")
        presence_seen_by_wes = await wes.expect("presence")
        assert presence_seen_by_ira == presence_seen_by_wes
        assert [p["name"] for p in presence_seen_by_wes["players"]] == ["Ira", "Wes"]
        assert presence_seen_by_wes["online"] == 2
        state_for_wes = await wes.expect("state")
        assert state_for_wes["online"] == 2

        await wes.say("I open the door.")
        from_wes_at_wes = await wes.expect("narrative")
        from_wes_at_ira = await ira.expect("narrative")
        assert from_wes_at_wes == from_wes_at_ira
        assert from_wes_at_ira["speaker"] == "player" and from_wes_at_ira["name"] == "Wes"
        assert from_wes_at_ira["text"] == "I open the door."
        await wes.expect("state")
        await ira.expect("state")

        await ira.say("我跟在后面。")
        from_ira_at_ira = await ira.expect("narrative")
        from_ira_at_wes = await wes.expect("narrative")
        assert from_ira_at_ira == from_ira_at_wes
        assert from_ira_at_wes["name"] == "Ira" and from_ira_at_wes["text"] == "我跟在后面。"
        assert from_ira_at_wes["id"] != from_wes_at_wes["id"]


async def test_leaving_updates_presence_for_those_who_stay(server, room, carrier):
    stay_key = server.env.mint(room, "Stay")
    leave_key = server.env.mint(room, "Leave")
    async with await WsClient.connect(server.ws_url) as stayer:
        await stayer.join(stay_key)
        leaver = await (
            WsClient.connect(server.ws_url) if carrier == "ws" else IrohClient.connect(server.ticket)
        )
        await leaver.join(leave_key)
        joined = await stayer.expect("presence")
        assert joined["online"] == 2
        await leaver.close()
        left = await stayer.expect("presence")
        assert left["players"] == [p for p in joined["players"] if p["name"] == "Stay"]
        assert left["online"] == 1


async def test_two_connections_of_one_member_count_once(server, room):
    key = server.env.mint(room, "Twin")
    async with (
        await WsClient.connect(server.ws_url) as first,
        await IrohClient.connect(server.ticket) as second,
    ):
        await first.join(key)
        frames = await second.join(key)
        presence = next(f for f in frames if f["type"] == "presence")
        assert presence["online"] == 1 and len(presence["players"]) == 1


async def test_a_ping_gets_a_pong_with_the_same_t(server, room, carrier):
    key = server.env.mint(room, "Pat")
    from loreweaver.testing.clients import connect

    async with await connect(carrier, server) as client:
        await client.join(key)
        await client.send({"type": "ping", "t": 1234.5})
        pong = await client.expect("pong")
    assert pong == {"type": "pong", "t": 1234.5}


async def test_members_of_another_room_see_nothing(server, room):
    here = server.env.mint(room, "Here")
    elsewhere = server.env.mint(room + "-other", "There")
    async with await WsClient.connect(server.ws_url) as a, await WsClient.connect(server.ws_url) as b:
        await a.join(here)
        await b.join(elsewhere)
        await a.say("secret plan")
        await a.expect("narrative")
        await b.send({"type": "ping", "t": 1})
        frames = await b.collect_until("pong")
    assert all(f["type"] != "narrative" for f in frames)
