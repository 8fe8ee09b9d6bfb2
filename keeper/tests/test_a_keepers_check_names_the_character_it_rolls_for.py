"""The Keeper's check names the character it rolls for, on every viewer's card, even
when the model names the player (docs/rules.md, "Who a roll names"); it knows a skill by
the name the sheet prints, in either language."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient, WsClient, settle, system_answer, until_idle
from loreweaver.testing.fake_llm import Text, Tool


async def test_a_keepers_check_names_the_character_for_the_player_and_the_character(ai_server, llm, room):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as alice,
        await IrohClient.connect(ai_server.ticket) as kay,
    ):
        await alice.join(env.mint(room, "Alice"), locale="en")
        await kay.join(env.mint(room, "Kay", "keeper"), locale="zh")
        await system_answer(alice, ".coc Eleanor Hart")
        await settle(alice)
        await settle(kay)
        for named, skill in (("Alice", "Spot Hidden"), ("Eleanor Hart", "侦查")):
            llm.script(Tool("skill_check", {"character": named, "skill": skill}))
            llm.script(Text("You see it."))
            await alice.say("I look around")
            for client in (alice, kay):
                cards = [f for f in await until_idle(client) if f["type"] == "dice"]
                assert [(c["actor"], c["skill"], c["target"]) for c in cards] == [
                    ("Eleanor Hart", "spot_hidden", 25)
                ], (named, skill)
            await alice.expect("state")
            await kay.expect("state")
        told = llm.chat_requests()[-1]["messages"][-1]["content"]
        assert told.startswith("Eleanor Hart: spot_hidden "), told

        report = await system_answer(kay, ".report")
        assert "Eleanor Hart：掷骰 2 次" in report and "Alice：掷骰" not in report, report
