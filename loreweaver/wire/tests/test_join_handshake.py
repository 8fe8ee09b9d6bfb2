"""The join handshake over both carriers."""

from __future__ import annotations

from loreweaver.testing.clients import connect


async def test_a_good_key_gets_welcome_then_presence_state_and_an_empty_manifest(server, room, carrier):
    key = server.env.mint(room, "Ann", "keeper")
    client = await connect(carrier, server)
    async with client:
        frames = await client.join(key)
    types = [f["type"] for f in frames]
    assert types[0] == "welcome"
    welcome = frames[0]
    assert welcome["protocol"] == "2.3"
    assert welcome["room"] == room
    assert welcome["you"]["name"] == "Ann" and welcome["you"]["role"] == "keeper"
    assert welcome["you"]["id"].startswith("tui:") and len(welcome["you"]["id"]) == 12
    assert {"media", "audio"} <= set(welcome["features"])
    assert "update" not in welcome["features"]  # no update command configured
    assert types[1] == "presence"
    ann = {"id": welcome["you"]["id"], "name": "Ann", "online": True, "role": "keeper", "carriers": [carrier]}
    assert frames[1]["players"] == [ann]
    assert types[-2:] == ["state", "ui_manifest"]
    assert frames[-1]["panels"] == []
    state = frames[-2]
    assert state["initiative"] == [] and state["online"] == 1 and "party" in state
    assert {"id": "coc7", "make_char": "coc"} in state["systems"]
    assert {"id": "dnd5e", "make_char": "dnd"} in state["systems"]


async def test_join_name_does_not_change_the_member_name(server, room, carrier):
    key = server.env.mint(room, "Bea")
    async with await connect(carrier, server) as client:
        frames = await client.join(key, name="Impostor", client={"name": "tui", "version": "9"})
    assert frames[0]["you"]["name"] == "Bea"


async def test_join_locale_sets_the_viewers_locale(server, room, carrier):
    key = server.env.mint(room, "Cai")
    async with await connect(carrier, server) as client:
        frames = await client.join(key, locale="zh")
        assert frames[0]["locale"] == "zh"
        await client.send({"type": "input", "text": "x" * 4001})
        error = await client.expect("error")
    assert error["code"] == "input_too_long"
    assert "4000" in error["message"] and "消息" in error["message"]
