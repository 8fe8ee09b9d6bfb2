"""A SideQuest player at a table whose keeper chose a language reads the table in it
(docs/rules.md, "The room's language"): the announcement, a command's answer, the
carrier's own narration and errors, from the moment of `.language zh`, on the same
socket. Real sockets: a loreweaver keeper and a SideQuest client on `/ws`."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.wire.tests.sidequest_client import SideQuestClient

CJK = re.compile(r"[\u4e00-\u9fff]")


async def _narration(client: SideQuestClient) -> str:
    return (await client.expect("NARRATION"))["text"]


async def test_a_sidequest_player_reads_chinese_after_language_zh_and_english_after_language_en(server, room):
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await SideQuestClient.open(server, env.mint(room, "Sam")) as sam,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"), locale="en")
        await sam.joined("Sam")
        await sam.expect("CHARACTER_CREATION", phase="scene")
        await sam.send("PLAYER_ACTION", {"action": "/tone grim 3"})
        assert await _narration(sam) == "This table has no tone axes; the Keeper follows the story."

        await system_answer(keeper, ".language zh")
        assert await _narration(sam) == "房间语言已切换为中文。"
        await sam.send("PLAYER_ACTION", {"action": "/tone grim 3"})
        assert await _narration(sam) == "这张桌子没有基调轴；守秘人会顺着故事走。"
        await sam.send("PLAYER_ACTION", {"action": "/nosuch"})
        assert (await sam.expect("ERROR"))["message"] == "未知命令 /nosuch；/help 会列出全部命令。"
        await sam.send("PLAYER_ACTION", {"action": ".ra 侦查 50"})
        answer = await _narration(sam)
        assert CJK.search(answer) and "Success" not in answer and "Failure" not in answer, answer

        await system_answer(keeper, ".language en")
        assert await _narration(sam) == "Room language is now English."
        await sam.send("PLAYER_ACTION", {"action": "/nosuch"})
        assert (await sam.expect("ERROR"))["message"] == "Unknown command /nosuch; /help lists them."
