"""A SideQuest guest who names their character after one another member already plays
(docs/sidequest.md, "Joining"): the table's refusal comes back as `ERROR`, then the
confirmation again, never a hang and never a second character of that name; editing the
name makes the character. Over a real socket on `/ws`."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, open_to_any_name


async def _answer_scenes(guest: SideQuestClient, *choices: str) -> None:
    for choice in choices:
        await guest.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})


async def test_a_guest_naming_a_character_someone_plays_is_told_and_asked_again(server, room):
    env = server.env
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))  # the room exists
    open_to_any_name(env, room)

    async with await SideQuestClient.open(server, browser=Browser()) as wren:
        assert (await wren.joined("Wren", world=room))["has_character"] is False
        await _answer_scenes(wren, "Wren Hale", "she/her", "A wanderer.")
        await wren.expect("CHARACTER_CREATION", phase="confirmation")
        await wren.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
        made = await wren.expect("CHARACTER_CREATION", phase="complete")
        assert made["character"]["name"] == "Wren Hale"

        async with await SideQuestClient.open(server, browser=Browser()) as robin:
            assert (await robin.joined("Robin", world=room))["has_character"] is False
            await _answer_scenes(robin, " wren  HALE ", "he/him", "A sailor.")
            await robin.expect("CHARACTER_CREATION", phase="confirmation")
            await robin.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
            refused = await robin.expect("ERROR")
            assert "Wren Hale" in refused["message"] and "another name" in refused["message"], refused
            assert refused["reconnect_required"] is False
            await robin.expect("CHARACTER_CREATION", phase="confirmation")

            await robin.send("CHARACTER_CREATION", {"action": "edit", "target_step": 0})
            await robin.expect("CHARACTER_CREATION", phase="scene", scene_index=0)
            await _answer_scenes(robin, "Robin Vale")
            await robin.expect("CHARACTER_CREATION", phase="confirmation")
            await robin.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
            made = await robin.expect("CHARACTER_CREATION", phase="complete")
            assert made["character"]["name"] == "Robin Vale"
