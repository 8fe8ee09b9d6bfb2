"""A D&D character in the sample adventure rolls its checks the way D&D does
(docs/decisions.md, "The offline Keeper and the sample adventure"): d20 plus the
character's own modifier (Spot Hidden is Perception) against the DC of a regular check,
never the adventure's percentage added as a modifier; and the player's `.dnd` leaves the
room rolling as the Call of Cthulhu adventure it plays (a keeper's check is a d100)."""

from __future__ import annotations

from keeper.kp.sample import GUIDED_ACTIONS, adventure
from keeper.tests.test_the_sample_adventure_follows_the_players import _close, _seated
from loreweaver.testing.clients import settle


def _checks(frames: list[dict]) -> list[dict]:
    return [f for f in frames if f["type"] == "dice" and f["kind"] == "check"]


async def test_a_dnd_character_rolls_d20_and_its_own_modifier_against_a_dc(server, room):
    table, _welcome = await _seated(server, room)
    try:
        await table.turn("Kay", GUIDED_ACTIONS[0])
        await table.seats["Pat"].say(".dnd")
        await settle(table.seats["Pat"])
        await settle(table.keeper)
        await table.turn("Pat", "I row out to the rock")
        [check] = _checks(await table.turn("Pat", "I examine the door"))
        assert check["actor"] == "Pat" and check["skill"] == "perception", check
        assert check["expr"].startswith("1d20"), check
        assert -5 <= check["detail"]["modifier"] <= 5, "the character's own Wisdom modifier"
        assert check["target"] == adventure()["d20"]["dc"]["regular"], "a regular check's DC"
        assert check["total"] == check["rolls"][0] + check["detail"]["modifier"], check

        [keepers] = _checks(await table.turn("Kay", "I listen in the silence"))
        assert keepers["expr"].startswith("1d100"), "the room still rolls as Call of Cthulhu"
    finally:
        await _close(table)
