"""The offline Keeper's sample adventure hands out its items and opens its quest through
the Keeper's tools (docs/rules.md, "Items, money and quests"): Ruth's lantern and the
quest at the opening (the lantern to the room's first player character: the keeper who
starts it plays none), Silas's logbook to whoever finds it; the quest is completed at
an ending (`test_the_sample_adventure_follows_the_players.py`)."""

from __future__ import annotations

from keeper.kp.sample import GUIDED_ACTIONS
from keeper.tests.test_the_sample_adventure_follows_the_players import _close, _seated
from loreweaver.testing.clients import settle, state_now


def _items(state: dict) -> dict[str, dict]:
    return {item["name"]: item for item in state["character"].get("items", [])}


async def test_the_opening_gives_the_lantern_and_opens_the_quest_and_the_stair_gives_the_logbook(
    server, room
):
    table, _welcome = await _seated(server, room)
    try:
        await table.seats["Pat"].say(".coc Pat")
        await table.seats["Pat"].expect("narrative", speaker="system")
        await settle(table.keeper)
        opening = await table.turn("Kay", GUIDED_ACTIONS[0])
        told = [f["text"] for f in opening if f["type"] == "narrative" and f["speaker"] == "system"]
        assert told == ["A new quest: The dark lighthouse.", "Pat takes the Lantern."]
        assert _items(await state_now(table.seats["Pat"]))["Lantern"]["kind"] == "tool"
        assert table.state["quests"] == [
            {
                "name": "The dark lighthouse",
                "status": "in_progress",
                "description": "Learn why the lamp on Gull Rock has been dark for three nights",
            }
        ]
        await table.turn("Pat", "We row out to the lighthouse.")
        await table.turn("Pat", "We go inside and call out.")
        found = await table.until("Pat", "I search under the stairs.", "log")
        assert any(f.get("text") == "Pat takes the Logbook." for f in found)
        assert (
            _items(await state_now(table.seats["Pat"]))["Logbook"]["description"]
            == "Silas Marsh's water-stained log"
        )
    finally:
        await _close(table)
