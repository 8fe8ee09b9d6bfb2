"""`.coc` in the sample adventure (the welcome's button) makes the same adventure-ready
investigator a player who just types gets (docs/decisions.md, "The offline Keeper and
the sample adventure"): Spot Hidden 60, not the plain sheet's 25, so the button is
never the worse choice."""

from __future__ import annotations

from keeper.kp.sample import GUIDED_ACTIONS, adventure
from keeper.tests.test_the_sample_adventure_follows_the_players import _close, _seated
from loreweaver.testing.clients import settle


async def test_coc_in_the_sample_adventure_gives_the_adventures_skills(server, room):
    table, _welcome = await _seated(server, room)
    try:
        await table.turn("Kay", GUIDED_ACTIONS[0])
        await table.seats["Pat"].say(".coc")
        await settle(table.seats["Pat"])
        await settle(table.keeper)
        await table.turn("Pat", "I row out to the rock")
        frames = await table.turn("Pat", "I examine the door")
        [check] = [f for f in frames if f["type"] == "dice" and f["kind"] == "check"]
        assert check["actor"] == "Pat" and check["skill"] == "spot_hidden"
        assert check["target"] == adventure()["skills"]["spot_hidden"], check
    finally:
        await _close(table)
