"""The sample adventure never makes its keeper a character (docs/decisions.md, "The
offline Keeper and the sample adventure"): the keeper who starts it has no sheet, no
lantern and no place in the players' party; a player gets an investigator on their
first line; and the opening's "Act I" title card comes before the narration it
opens."""

from __future__ import annotations

from keeper.kp.sample import GUIDED_ACTIONS
from keeper.tests.test_the_sample_adventure_follows_the_players import _close, _seated


def _party(state: dict) -> list[str]:
    return [member["name"] for member in state.get("party", [])]


async def test_the_keeper_who_starts_it_gets_no_character_and_the_title_card_comes_first(server, room):
    table, _welcome = await _seated(server, room)
    try:
        opening = await table.turn("Kay", GUIDED_ACTIONS[0])
        kinds = [f["type"] for f in opening]
        card = kinds.index("ui")
        assert opening[card]["blocks"][0]["kind"] == "title_card"
        first_narration = next(
            i
            for i, f in enumerate(opening)
            if f["type"] in ("narrative", "narrative_delta") and f["speaker"] == "kp"
        )
        assert card < first_narration, "the title card opens the scene, before its narration"
        assert "character" not in table.state, "the keeper plays no investigator"
        assert "Kay" not in _party(table.state)
        told = [f["text"] for f in opening if f["type"] == "narrative" and f["speaker"] == "system"]
        assert not any("Lantern" in text for text in told), "nobody plays yet: nobody takes it"

        await table.turn("Pat", "Ruth, what is wrong with Silas?")
        assert _party(table.state) == ["Pat"], "a player gets an investigator on a first line"
        await table.turn("Kay", "We row out to the lighthouse.")
        assert "character" not in table.state and _party(table.state) == ["Pat"]
    finally:
        await _close(table)
