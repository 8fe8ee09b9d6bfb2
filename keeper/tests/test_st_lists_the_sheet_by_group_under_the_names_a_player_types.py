"""`.st` alone lists the whole sheet by group (characteristics, vitals, derived values,
skills), each value under the pack's display name in the caller's language: the words
`.ra`, `.st` and `.en` accept (docs/rules.md, "The command dialect")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, settle, system_answer

EXPECTED = {
    "en": [
        "Characteristics: Strength (STR) 70, ",
        "Vitals: HP ",
        "Derived: Build ",
        "Skills: Accounting 5, ",
    ],
    "zh": ["属性：力量 70, ", "状态：生命值 ", "派生值：体格 ", "技能：会计 5, "],
}


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_st_lists_every_value_by_group_in_the_callers_words(server, room, locale):
    async with await WsClient.connect(server.ws_url) as ann:
        await ann.join(server.env.mint(room, "Ann"), locale=locale)
        await system_answer(ann, ".coc Ann Ward")
        await system_answer(ann, ".st STR70 Spot Hidden 65")
        await settle(ann)
        listed = (await system_answer(ann, ".st")).splitlines()
    assert listed[0].startswith("Ann Ward (")
    groups = listed[1:]
    assert [line[: len(start)] for line, start in zip(groups, EXPECTED[locale], strict=True)] == EXPECTED[
        locale
    ]
    assert ("Spot Hidden 65" if locale == "en" else "侦查 65") in groups[-1]


async def test_a_dnd_sheet_lists_its_skills_as_signed_modifiers(server, room):
    async with await WsClient.connect(server.ws_url) as ann:
        await ann.join(server.env.mint(room, "Ann"), locale="zh")
        await system_answer(ann, ".dnd Ann Ward")
        await system_answer(ann, ".st DEX14")
        await settle(ann)
        listed = await system_answer(ann, ".st")
    assert "敏捷 14" in listed and "隐匿 +2" in listed, listed
