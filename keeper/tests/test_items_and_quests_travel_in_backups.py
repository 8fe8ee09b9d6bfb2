"""What characters carry and the room's quests travel in room backups (`.save`,
`.save load`): a checkpoint brings back the items, the money and the quests, secret
ones still secret; a story reset ends the quests and leaves the characters' things."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer


async def test_a_checkpoint_brings_back_items_money_and_quests(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await system_answer(kay, ".coc Kay")
        await system_answer(kay, ".inv add Lantern | tool | Brass")
        await system_answer(kay, ".money +7")
        await system_answer(kay, ".quest add Light the lamp | Why is it dark?")
        await system_answer(kay, ".quest secret Ruth's bribe")
        assert f"{room}-items.zip" in await system_answer(kay, f".save {room}-items")

        await system_answer(kay, ".inv drop lantern")
        await system_answer(kay, ".quest set Light the lamp failed")
        await kay.say(f".save load {room}-items")
        state = await kay.expect("state", reset=True)
    assert state["character"]["items"] == [
        {"name": "Lantern", "kind": "tool", "quantity": 1, "equipped": False, "description": "Brass"}
    ]
    assert state["character"]["money"] == 7
    assert state["quests"] == [
        {"name": "Light the lamp", "status": "in_progress", "description": "Why is it dark?"},
        {"name": "Ruth's bribe", "status": "in_progress", "description": "", "secret": True},
    ]


async def test_a_story_reset_ends_the_quests_but_not_what_the_characters_carry(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await system_answer(kay, ".coc Kay")
        await system_answer(kay, ".inv add Lantern")
        await system_answer(kay, ".quest add Light the lamp")
        await system_answer(kay, ".reset")
        await kay.say(".reset confirm")
        state = await kay.expect("state", reset=True)
    assert "quests" not in state
    assert [item["name"] for item in state["character"]["items"]] == ["Lantern"]
