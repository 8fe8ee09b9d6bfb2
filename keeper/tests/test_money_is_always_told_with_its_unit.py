"""Money is always told with its rule pack's unit, in the reader's language: `.money`,
`.money ±N`, the money line of `.inv` and the refusal to spend more than there is
(docs/rules.md, "Items, money and quests")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, system_answer

CASES = [
    ("en", ".coc Ann", "Ann", "dollars", "Ann has only 25 dollars.", "Money: 25 dollars."),
    ("zh", ".coc 安", "安", "美元", "安只有 25 美元。", "金钱：25 美元。"),
    ("en", ".dnd Bo", "Bo", "gold", "Bo has only 25 gold.", "Money: 25 gold."),
    ("zh", ".dnd 博", "博", "金币", "博只有 25 金币。", "金钱：25 金币。"),
]


@pytest.mark.parametrize(("locale", "make", "who", "unit", "refused", "listed"), CASES)
async def test_every_answer_about_money_names_its_unit(
    server, room, locale, make, who, unit, refused, listed
):
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Player"), locale=locale)
        await system_answer(player, make)
        assert unit in await system_answer(player, ".money +25")
        assert unit in await system_answer(player, ".money")
        assert await system_answer(player, ".money -40") == refused
        assert await system_answer(player, ".inv") == f"{_carries_nothing(locale, who)} {listed}"


def _carries_nothing(locale: str, who: str) -> str:
    return f"{who} carries nothing." if locale == "en" else f"{who}身上什么也没带。"
