"""An item's kind reads in the reader's language in `.inv` ("[weapon]", "[武器]"), and
the refusal of an unknown kind lists the kinds as that reader types them."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, system_answer

CASES = [
    ("en", ".coc Ann", ".inv add Revolver | weapon", "  Revolver [weapon]", "  Rope [misc]", "quest item"),
    ("zh", ".coc 安", ".inv 添加 左轮 | 武器", "  左轮 [武器]", "  Rope [杂物]", "任务物品"),
]


@pytest.mark.parametrize(("locale", "make", "add", "weapon", "misc", "quest_kind"), CASES)
async def test_the_inventory_names_each_kind_in_the_readers_language(
    server, room, locale, make, add, weapon, misc, quest_kind
):
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Player"), locale=locale)
        await system_answer(player, make)
        await system_answer(player, add)
        await system_answer(player, ".inv add Rope")
        listing = (await system_answer(player, ".inv")).splitlines()
        assert weapon in listing and misc in listing
        refused = await system_answer(player, ".inv add Lamp | glowing")
        assert f", {quest_kind}, " in refused, refused
        await system_answer(player, f".inv add Flask | {quest_kind}")  # a listed kind can be typed
        assert f"  Flask [{quest_kind}]" in (await system_answer(player, ".inv")).splitlines()
