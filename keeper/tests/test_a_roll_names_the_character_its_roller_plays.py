"""One name per roller (docs/rules.md, "Who a roll names"): a member who plays a
character rolls under the character's name on every dice card and every line the table
reads, `.report` and `.recap` included, in English and in Chinese; a member without a
character rolls under their own name."""

from __future__ import annotations

import re

import pytest

from loreweaver.testing.clients import Client, IrohClient, WsClient, settle, system_answer


async def _rolled(client: Client, line: str) -> tuple[dict, str]:
    """Say a rolling command; its dice card and the system's line about it."""
    await client.say(line)
    frames = await client.collect_until("state")
    (card,) = [f for f in frames if f["type"] == "dice"]
    (told,) = [f for f in frames if f["type"] == "narrative" and f["speaker"] == "system"]
    return card, told["text"]


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_a_players_rolls_name_their_character_and_a_member_without_one_is_named_as_themself(
    server, room, locale
):
    async with (
        await WsClient.connect(server.ws_url) as alice,
        await IrohClient.connect(server.ticket) as bo,
    ):
        await alice.join(server.env.mint(room, "Alice"), locale=locale)
        await bo.join(server.env.mint(room, "Bo"), locale=locale)
        await system_answer(alice, ".coc Eleanor Hart")
        await settle(alice)
        await settle(bo)
        for line in (".ra spot hidden 60", ".sc 0/1", ".r 1d6", ".ti", "I swing the lamp [[1d4]]"):
            card, told = await _rolled(alice, line)
            assert card["actor"] == "Eleanor Hart", (line, card)
            assert "Eleanor Hart" in told and "Alice" not in told, (line, told)
            seen_by_bo = await bo.expect("dice")
            assert seen_by_bo["actor"] == "Eleanor Hart", "every viewer's card names the character"
        await settle(bo)
        card, told = await _rolled(bo, ".ra 侦查50")
        assert card["actor"] == "Bo" and told.startswith("Bo")
        await settle(alice)

        report = (await system_answer(alice, ".report")).splitlines()
        rolls = [line for line in report if re.search(r"\d", line) and ("rolls" in line or "掷骰" in line)]
        assert [line.split(":")[0].split("：")[0] for line in rolls] == ["Eleanor Hart", "Bo"], report
        assert re.search(r"\b5\b", rolls[0]), "all five of her rolls are counted under one name"

        recap = await system_answer(alice, ".recap")
        assert "Eleanor Hart" in recap and "Alice" not in recap, recap
