"""A SideQuest keeper who narrates by hand (the room's Keeper bot off, `.bot off`) gets
`NARRATION_END` after each line, as after any action (docs/sidequest.md, "Playing"):
the game says when it is done with the input; a keeper's line is the story's narration,
not a player's echo, so no end could be read from the frames alone."""

from __future__ import annotations

from loreweaver.testing.clients import human_keeper_narrates
from loreweaver.wire.tests.sidequest_client import SideQuestClient


async def test_a_keepers_hand_narrated_line_ends_with_narration_end(server, room):
    await human_keeper_narrates(server, room)
    env = server.env
    async with (
        await SideQuestClient.open(server, env.mint(room, "Gail", "keeper")) as gail,
        await SideQuestClient.open(server, env.mint(room, "Sam")) as sam,
    ):
        await gail.joined("Gail")
        await sam.joined("Sam")
        await gail.act("The fog rolls in over the harbour.")
        ended = await gail.until_end()
        assert [m["type"] for m in ended].count("NARRATION_END") == 1
        heard = await sam.expect("NARRATION")
        while "The fog rolls in" not in heard["text"]:  # after the join's notice that a human narrates
            heard = await sam.expect("NARRATION")

        await gail.act("A bell tolls somewhere below the rock.")
        again = await gail.until_end()
        assert any("A bell tolls" in m["payload"].get("text", "") for m in again if m["type"] == "NARRATION")
