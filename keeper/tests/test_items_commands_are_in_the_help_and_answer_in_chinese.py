"""`.inv`, `.money` and `.quest` are listed in `.help` under the characters, in the
viewer's language, and answer a Chinese viewer in Chinese, with the sub-commands'
Chinese words (docs/rules.md, "Items, money and quests")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer


async def test_the_item_commands_are_listed_under_the_characters_in_both_languages(server, room):
    async with (
        await WsClient.connect(server.ws_url) as pip,
        await WsClient.connect(server.ws_url) as zhu,
    ):
        await pip.join(server.env.mint(room, "Pip"))
        await zhu.join(server.env.mint(room, "Zhu"), locale="zh")
        english = (await system_answer(pip, ".help")).splitlines()
        chinese = (await system_answer(zhu, ".help")).splitlines()
    start = english.index("Characters:") + 1
    end = next(i for i in range(start, len(english)) if not english[i].startswith("  "))
    listed = [line.split()[0] for line in english[start:end]]
    assert {".inv", ".money", ".quest"} <= set(listed), "under the characters"
    inv = next(line for line in chinese if line.startswith("  .inv "))
    assert ".背包" in inv and "物品：" in inv


async def test_a_chinese_viewer_uses_the_inventory_in_chinese(server, room):
    async with await WsClient.connect(server.ws_url) as zhu:
        await zhu.join(server.env.mint(room, "Zhu"), locale="zh")
        await system_answer(zhu, ".coc 朱")
        assert await system_answer(zhu, ".背包 添加 提灯 | 工具") == "朱拿到了提灯。"
        assert await system_answer(zhu, ".inv 装备 提灯") == "朱装备了提灯。"
        listing = await system_answer(zhu, ".背包")
        assert "提灯 [工具]（已装备）" in listing and "金钱：0 美元。" in listing
        assert await system_answer(zhu, ".任务") == "还没有任务。"
