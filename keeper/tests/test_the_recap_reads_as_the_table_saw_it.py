"""`.recap` over a real socket: a roll's outcome in words of the room's language (never
the stored mapping of every language), and with the bot off a keeper's narration told
once (docs/decisions.md, "Campaign memory")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle, system_answer


async def test_a_rolls_outcome_reads_in_the_rooms_language(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        assert await system_answer(keeper, ".language zh") == "房间语言已切换为中文。"
        await system_answer(keeper, ".ra 侦查 50")  # the roll's own reply, in the room's language
        recap = await system_answer(keeper, ".recap")
    assert "侦查" in recap and any(word in recap for word in ("成功", "失败", "大成功", "大失败"))
    assert "{" not in recap and "Success" not in recap and "Failure" not in recap


async def test_with_the_bot_off_a_keepers_narration_is_told_once(server, room):
    async with await WsClient.connect(server.ws_url) as keeper, await WsClient.connect(server.ws_url) as pip:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await pip.join(server.env.mint(room, "Pip"))
        await system_answer(keeper, ".bot off")
        await settle(pip)
        await keeper.say("The lighthouse door creaks open.")
        await pip.expect("narrative", speaker="kp")
        await pip.say("I step inside.")
        await keeper.expect("narrative", speaker="player", text="I step inside.")
        recap = await system_answer(pip, ".recap")
    assert recap.count("The lighthouse door creaks open.") == 1
    assert "Kay: The lighthouse door creaks open." in recap and "Pip: I step inside." in recap


async def test_a_typed_roll_is_told_once(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        rolled = await system_answer(keeper, ".r 1d1+4241")
        check = await system_answer(keeper, ".ra Spot Hidden 50")
        recap = await system_answer(keeper, ".recap")
    assert "4242" in rolled and recap.count("4242") == 1, recap
    assert check in recap, "the check's reply is what the table saw"
    assert "(Kay" not in recap, "no roll line beside the reply that told it"
