"""`.bio` writes the active character's background and shows it (docs/rules.md); the
SideQuest carrier makes its characters' backgrounds with it."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer


async def test_a_player_writes_and_reads_their_characters_background(server, room):
    async with await WsClient.connect(server.ws_url) as ada:
        await ada.join(server.env.mint(room, "Ada"))
        assert "make one with .coc or .dnd" in await system_answer(ada, ".bio A dockhand.")
        await system_answer(ada, ".coc Ada Reyes")
        assert "Ada Reyes has no background yet" in await system_answer(ada, ".bio")
        assert await system_answer(ada, ".bio A dockhand who reads the tides.") == (
            "Ada Reyes's background is written."
        )
        assert await system_answer(ada, ".bio") == "Ada Reyes: A dockhand who reads the tides."


async def test_the_background_is_answered_in_chinese_too(server, room):
    async with await WsClient.connect(server.ws_url) as lin:
        await lin.join(server.env.mint(room, "Lin"), locale="zh")
        await system_answer(lin, ".coc 林")
        assert await system_answer(lin, ".bio 码头工人。") == "林 的背景已写好。"
