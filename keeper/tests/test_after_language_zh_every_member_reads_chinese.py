"""`.language` makes the room's language the story's, for every member on every carrier
(docs/rules.md, "The room's language"): a member who joined in English reads every
server line in Chinese from the keeper's `.language zh` on, without reconnecting, and
English again after `.language en`. Real sockets, WebSocket and Iroh."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, connect, settle, system_answer

CJK = re.compile(r"[\u4e00-\u9fff]")


async def _said_to(client, text: str) -> dict:
    return await client.expect("narrative", speaker="system", text=text)


async def test_a_member_who_joined_in_english_reads_the_story_in_chinese_after_language_zh(
    server, room, carrier
):
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await connect(carrier, server) as pat,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"), locale="en")
        joined = await pat.join(env.mint(room, "Pat"), locale="en")
        assert joined[0]["locale"] == "en"  # no language chosen: the join's
        assert "each member reads in the language they joined with" in await system_answer(pat, ".language")

        await keeper.say(".language zh")
        # The answer is written in the new language, to the whole room.
        await _said_to(pat, "房间语言已切换为中文。")
        await _said_to(keeper, "房间语言已切换为中文。")

        # A command's reply to the member themself.
        assert await system_answer(pat, ".language") == "房间语言：中文。"
        # A roll: its reply and its outcome label.
        await pat.say(".ra 侦查 50")
        dice = await pat.expect("dice")
        assert CJK.search(dice["outcome"]["label"]), dice
        reply = (await pat.expect("narrative", speaker="system"))["text"]
        assert CJK.search(reply) and "Success" not in reply and "Failure" not in reply
        # A recap's headings.
        recap = await system_answer(pat, ".recap")
        assert "目前为止：" in recap and "So far" not in recap

        # A system notice: the keeper loads a checkpoint, and every member is told.
        await keeper.say(f".save {room}-zh")
        await keeper.expect("narrative", speaker="system", text=f"已存档为 {room}-zh.zip。")
        await keeper.say(f".save load {room}-zh")
        await pat.expect("state", reset=True)
        told = await pat.expect("system")
        assert CJK.search(told["text"]) and "restored" not in told["text"], told

        # And back to English, for everyone, at once.
        await settle(pat)
        await keeper.say(".language en")
        await _said_to(pat, "Room language is now English.")
        assert await system_answer(pat, ".language") == "Room language: English."
        await pat.say(".ra Spot Hidden 50")
        assert not CJK.search((await pat.expect("dice"))["outcome"]["label"])


async def test_a_member_joining_a_chinese_room_is_welcomed_in_chinese(server, room):
    env = server.env
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(env.mint(room, "Kay", "keeper"), locale="en")
        await system_answer(keeper, ".language zh")
    async with await WsClient.connect(server.ws_url) as pat:
        joined = await pat.join(env.mint(room, "Pat"), locale="en")
        assert joined[0]["type"] == "welcome" and joined[0]["locale"] == "zh"
        assert await system_answer(pat, ".language") == "房间语言：中文。"
        assert "Unknown command" not in (answer := await system_answer(pat, ".nosuchthing")) and CJK.search(
            answer
        )


async def test_a_bad_language_is_refused_in_the_rooms_language(server, room):
    env = server.env
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(env.mint(room, "Kay", "keeper"), locale="en")
        refused = await system_answer(keeper, ".language fr")
        assert refused == "No room language is called fr: use .language en (English) or .language zh (中文)."
        await system_answer(keeper, ".language zh")
        refused = await system_answer(keeper, ".language klingon")
        assert refused == "没有叫 klingon 的房间语言：请用 .language en（English）或 .language zh（中文）。"
        assert await system_answer(keeper, ".language") == "房间语言：中文。"


async def test_a_player_may_ask_the_rooms_language_but_not_choose_it(server, room):
    env = server.env
    async with await WsClient.connect(server.ws_url) as pat:
        await pat.join(env.mint(room, "Pat"), locale="zh")
        assert (
            await system_answer(pat, ".language")
            == "房间尚未选定语言：每位成员看到的是自己加入时所选的语言。"
        )
        refused = await system_answer(pat, ".language en")
        assert CJK.search(refused) and "守秘人" in refused
