"""After a turn each member is sent the room's `state` as they may see it: their own
character only to its owner, a secret quest only to a keeper, labels in the viewer's
own language. Members who see the room alike are sent one frame built once (docs/
performance.md, "One state for the viewers who see it alike"); none is sent another's."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, human_keeper_narrates, settle, system_answer


async def _state_after(client: WsClient, line: str) -> dict:
    """The first `state` this member is sent after the story line `line`."""
    await client.expect("narrative", text=line)
    return await client.expect("state")


async def test_each_viewer_gets_the_state_that_is_theirs_after_a_turn(server, room):
    await human_keeper_narrates(server, room)  # story lines get no Keeper turn
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as ed,
        await WsClient.connect(server.ws_url) as pip,
        await WsClient.connect(server.ws_url) as zhu,
        await WsClient.connect(server.ws_url) as last,
    ):
        # Joined in this order, so each shares a language and a role with one before it.
        await kay.join(env.mint(room, "Kay", "keeper"), locale="en")
        await ed.join(env.mint(room, "Ed"), locale="en")
        await pip.join(env.mint(room, "Pip"), locale="en")
        await zhu.join(env.mint(room, "Zhu"), locale="zh")
        # A last arrival, so the four before all read who is online at once, alike.
        await last.join(env.mint(room, "Lu"), locale="zh")
        await system_answer(kay, ".quest secret Ruth's bribe | She paid the lamp-keeper")
        await system_answer(ed, ".coc Edwin")
        for member in (kay, ed, pip, zhu, last):
            await settle(member)

        await pip.say("I wait by the door.")
        kays, eds, pips, zhus = [await _state_after(m, "I wait by the door.") for m in (kay, ed, pip, zhu)]

    assert [q["name"] for q in kays.get("quests", [])] == ["Ruth's bribe"]
    assert "character" not in kays
    assert eds["character"]["name"] == "Edwin"
    assert [p["active"] for p in eds["party"]] == [True]
    for player in (pips, zhus):
        assert "character" not in player, "no one else's character"
        assert [p["active"] for p in player["party"]] == [False]
        assert "quests" not in player, "no secret quest"
    labels = {
        name: [r["label"] for r in state["party"][0]["resources"]]
        for name, state in (("Pip", pips), ("Zhu", zhus))
    }
    assert labels == {"Pip": ["HP", "MP", "Sanity", "Luck"], "Zhu": ["生命值", "魔法值", "理智", "幸运"]}
