"""The AI Keeper's tools for items, money and quests on the wire: `give_item`,
`use_item`, `change_money` and `set_quest` change the same sheet and quests the
commands do, each change a line of the story; a secret quest is told to the keepers
only, and never reaches a player's connection."""

from __future__ import annotations

import json

from loreweaver.testing.clients import WsClient, settle, system_answer, until_idle
from loreweaver.testing.fake_llm import Text, Tool


async def test_the_keeper_hands_out_items_money_and_quests_and_keeps_a_secret_one(ai_server, llm, room):
    env = ai_server.env
    llm.script(
        Text("Ruth presses a lantern into your hands. "),
        Tool("give_item", {"character": "Alice", "item": "Lantern", "kind": "tool", "description": "Brass"}),
    )
    llm.script(Tool("give_item", {"character": "alice", "item": "Flask", "kind": "consumable"}))
    llm.script(Tool("use_item", {"character": "Alice", "item": "flask"}))
    llm.script(Tool("change_money", {"character": "Alice", "change": 5}))
    llm.script(Tool("set_quest", {"name": "Light the lamp", "description": "Why is it dark?"}))
    llm.script(Tool("set_quest", {"name": "Ruth's bribe", "secret": True}))
    llm.script(Text("Off you go."))
    async with (
        await WsClient.connect(ai_server.ws_url) as alice,
        await WsClient.connect(ai_server.ws_url) as kay,
    ):
        await alice.join(env.mint(room, "Alice"))
        await kay.join(env.mint(room, "Kay", "keeper"))
        await system_answer(alice, ".coc Alice")
        await settle(alice)
        await settle(kay)

        await alice.say("I ask Ruth for help.")
        turn = await until_idle(alice)
        told = [f["text"] for f in turn if f["type"] == "narrative" and f["speaker"] == "system"]
        assert told == [
            "Alice takes the Lantern.",
            "Alice takes the Flask.",
            "Alice uses the Flask.",
            "Alice's money: 0 → 5 dollars.",
            "A new quest: Light the lamp.",
        ]
        state = await alice.expect("state")
        items = {item["name"]: item for item in state["character"]["items"]}
        assert items["Lantern"]["description"] == "Brass" and items["Flask"]["quantity"] == 0
        assert state["character"]["money"] == 5
        assert [quest["name"] for quest in state["quests"]] == ["Light the lamp"]
        await alice.send({"type": "ping", "t": 1})
        rest = await alice.collect_until("pong")

        keeper_side = await until_idle(kay)
        assert any(f["type"] == "system" and f["text"] == "A new quest: Ruth's bribe." for f in keeper_side)
        keeper_state = await kay.expect("state")
        assert {q["name"]: q.get("secret", False) for q in keeper_state["quests"]} == {
            "Light the lamp": False,
            "Ruth's bribe": True,
        }
    # Everything the player was sent since the turn began.
    assert "Ruth's bribe" not in json.dumps([*turn, state, *rest], ensure_ascii=False)


async def test_the_keepers_brief_knows_what_each_carries_and_the_quests_the_secret_one_as_a_secret(
    ai_server, llm, room
):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as alice,
        await WsClient.connect(ai_server.ws_url) as kay,
    ):
        await alice.join(env.mint(room, "Alice"))
        await kay.join(env.mint(room, "Kay", "keeper"))
        for line in (".coc Alice", ".inv add Lantern", ".inv add Flask x2", ".money +3"):
            await system_answer(alice, line)
        await kay.expect("narrative", speaker="system", text="Alice's money: 0 → 3 dollars.")
        await kay.say(".quest add Light the lamp | Why is it dark?")
        await kay.expect("narrative", speaker="system", text="A new quest: Light the lamp.")
        answer = await system_answer(kay, ".quest secret Ruth's bribe | She took money")
        assert answer == "A new quest for the keepers only: Ruth's bribe."
        llm.script(Text("The harbour waits."))
        await alice.say("I look at the sea.")
        await until_idle(alice)
    brief = [r for r in llm.chat_requests() if r.get("stream")][-1]["messages"][0]["content"]
    assert "carries: Lantern, Flask x2; money 3" in brief
    public, _sep, secret = brief.partition("KEEPER ONLY:")
    assert "- Light the lamp (in_progress): Why is it dark?" in public and "Ruth" not in public
    assert "Secret quest Ruth's bribe (in_progress): She took money" in secret
