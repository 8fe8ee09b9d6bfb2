"""The closing `state` of a turn is read once and reused while nothing it shows has
changed; a change made by anyone, even straight in the database outside any turn,
shows in the next one (docs/architecture.md, "A frame's way")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, human_keeper_narrates, vitals
from loreweaver.testing.servers import set_character_resource


async def test_a_sheet_changed_in_the_database_shows_in_the_state_after_the_next_line(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Pat"))
        await player.say(".coc Pat")
        await player.expect("narrative", speaker="system")
        before = vitals(await player.expect("state"))
        hp = next(key for key in before if key.lower() == "hp")

        await player.say("I wait by the door")
        await player.expect("narrative", speaker="player")
        assert vitals(await player.expect("state")) == before, "nothing changed yet"

        set_character_resource(server.env, room, "Pat", hp, before[hp] - 3)
        await player.say("I check my wounds")
        await player.expect("narrative", speaker="player")
        assert vitals(await player.expect("state"))[hp] == before[hp] - 3
