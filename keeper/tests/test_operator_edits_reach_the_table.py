"""An edit in the operator console that players see (here a character's HP) reaches
the connected members at once, as the same change made by a command would; and a sheet
whose lists are empty saves as it is (docs/operations.md, "The operator console")."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, human_keeper_narrates, vitals
from loreweaver.testing.operator_http import OperatorSession


async def test_an_hp_edit_in_the_console_reaches_the_connected_player(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Pat"))
        await player.say(".coc Pat")
        await player.expect("narrative", speaker="system")
        before = vitals(await player.expect("state"))
        hp = next(key for key in before if key.lower() == "hp")

        operator = OperatorSession(server)
        listing = operator.get(f"/admin/keeper/character/?q={room}")
        (character_id,) = set(re.findall(r"/admin/keeper/character/(\d+)/change/", listing))
        path = f"/admin/keeper/character/{character_id}/change/"
        page, values = operator.form_values(path)
        assert values["status_effects"].strip() == "", "the sheet has an empty list"
        # The vitals are name and value rows.
        row = next(
            key[: -len("-key")] for key, name in values.items() if key.startswith("resources-") and name == hp
        )
        assert values[f"{row}-value"] == str(before[hp])
        saved = operator.post(path, {**values, f"{row}-value": str(before[hp] - 4)}, page)
        assert "This field is required" not in saved and "was changed successfully" in saved

        pushed = await player.expect("state")  # nothing was said at the table
        assert vitals(pushed)[hp] == before[hp] - 4
