"""`.quest reveal <name>` is a line of the story: every player reads that the quest
came to light (in their language), not only the keeper who typed it."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, state_where, system_answer

CASES = [
    ("en", "Ruth's bribe", "A quest comes to light: Ruth's bribe."),
    ("zh", "露丝的贿赂", "新的任务浮出水面：露丝的贿赂。"),
]


@pytest.mark.parametrize(("locale", "quest", "told"), CASES)
async def test_the_players_read_that_a_secret_quest_came_to_light(server, room, locale, quest, told):
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as pip,
    ):
        await kay.join(server.env.mint(room, "Kay", "keeper"), locale=locale)
        await pip.join(server.env.mint(room, "Pip"), locale=locale)
        await system_answer(kay, f".quest secret {quest} | kept from the players")
        await kay.say(f".quest reveal {quest}")
        line = await pip.expect("narrative", speaker="system", text=told)
        assert line["text"] == told
        state = await state_where(pip, lambda s: any(q["name"] == quest for q in s.get("quests", [])))
        assert [q["status"] for q in state["quests"] if q["name"] == quest] == ["in_progress"]
