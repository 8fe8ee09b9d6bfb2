"""A SideQuest client reads the words a player sees in the room's language
(docs/sidequest.md, "Playing"): the character's class is their rule system's display
name, the sheet's stats are named as the pack names its characteristics, a roll names
its skill as the pack labels it (never `spot_hidden`), and the contract-era client's
sheet lists the money with its unit (its `INVENTORY` has only `gold`)."""

from __future__ import annotations

import re

import pytest

from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient

chinese = dedicated_server(TRPG_LOCALE="zh")

WORDS = {
    "en": ("Call of Cthulhu 7e", "Strength", "12 dollars", r"Sam rolls Spot Hidden: \d+/25"),
    "zh": ("克苏鲁的呼唤 第七版", "力量", "12 美元", r"Sam 掷 侦查：\d+/25"),
}


@pytest.fixture(params=["en", "zh"])
def table(request, server):
    """The server and the language its SideQuest members read (the server's own)."""
    return (server if request.param == "en" else request.getfixturevalue("chinese")), request.param


async def test_the_class_stats_rolls_and_money_read_in_the_rooms_language(table, room):
    server, locale = table
    system, strength, money, rolled = WORDS[locale]
    key = server.env.mint(room, "Sam")
    async with await WsClient.connect(server.ws_url) as loreweaver:
        await loreweaver.join(key, locale=locale)
        await system_answer(loreweaver, ".coc Sam")
        await system_answer(loreweaver, ".st 侦查25")
        await system_answer(loreweaver, ".money +12")
    async with await SideQuestClient.open(server, key) as sam:
        ready = await sam.joined("Sam")
        assert ready["initial_state"]["characters"][0]["class"] == system

        await sam.act("/status")
        sheet = await sam.expect("CHARACTER_SHEET")
        assert sheet["class"] == system
        assert strength in sheet["stats"] and "STR" not in sheet["stats"]
        assert money in sheet["equipment"], "the money with its unit, where the message has room"
        told = [m["payload"] for m in sam.seen if m["type"] == "PARTY_STATUS"]
        party = told[-1] if told else await sam.expect("PARTY_STATUS")  # the join's, if not yet read
        me = next(member for member in party["members"] if member["name"] == "Sam")
        assert me["class"] == system and strength in me["sheet"]["stats"]

        await sam.act("I search the harbour office" if locale == "en" else "我搜查港务办公室")
        told = [m["payload"]["text"] for m in await sam.until_end() if m["type"] == "NARRATION"]
        assert any(re.match(rolled, text) for text in told), told
        assert not any("spot_hidden" in text for text in told)
