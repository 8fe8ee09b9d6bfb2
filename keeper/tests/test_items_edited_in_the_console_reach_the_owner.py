"""A character's items and money edited in the operator console reach its connected
owner at once, in the one shape the table reads; a quest edited there reaches the
table too (docs/rules.md, "Items, money and quests")."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, human_keeper_narrates, system_answer
from loreweaver.testing.operator_http import OperatorSession


async def test_items_and_money_edited_in_the_console_reach_the_owner(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Pat"))
        await system_answer(player, ".coc Pat")
        await system_answer(player, ".inv add Lantern | tool")
        await player.expect("state")

        operator = OperatorSession(server)
        listing = operator.get(f"/admin/keeper/character/?q={room}")
        (character_id,) = set(re.findall(r"/admin/keeper/character/(\d+)/change/", listing))
        path = f"/admin/keeper/character/{character_id}/change/"
        page, values = operator.form_values(path)
        # An item a row: the Lantern, then blank rows to add to.
        assert (values["items-0-name"], values["items-0-kind"]) == ("Lantern", "tool")
        assert values["items-1-name"] == ""
        edited = {
            **values,
            "items-1-name": "Flask",
            "items-1-kind": "consumable",
            "items-1-quantity": "2",
            "money": "25",
        }
        saved = operator.post(path, edited, page)
        assert "was changed successfully" in saved

        pushed = await player.expect("state")  # nothing was said at the table
        assert pushed["character"]["items"][1] == {
            "name": "Flask",
            "kind": "consumable",
            "quantity": 2,
            "equipped": False,
            "description": "",
        }
        assert pushed["character"]["money"] == 25

        page, values = operator.form_values(path)
        nameless = {**values, "items-0-name": "", "items-0-description": "a lamp"}
        refused = operator.post(path, nameless, page)
        assert "Every item needs a name." in refused


async def test_a_quest_added_in_the_console_reaches_the_table(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Pat"))
        operator = OperatorSession(server)
        page, values = operator.form_values("/admin/keeper/quest/add/")
        room_id = re.search(rf'<option value="(\d+)">{re.escape(room)}</option>', page).group(1)
        form = {
            **values,
            "room": room_id,
            "name": "Light the lamp",
            "status": "in_progress",
            "description": "",
        }
        assert "was added successfully" in operator.post("/admin/keeper/quest/add/", form, page)
        pushed = await player.expect("state")
        assert pushed["quests"] == [{"name": "Light the lamp", "status": "in_progress", "description": ""}]
