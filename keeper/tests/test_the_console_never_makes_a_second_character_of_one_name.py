"""The operator's console holds to the table's rule on names (docs/rules.md,
"Characters and their names"): a character of a name another sheet of the room holds,
in any case or spacing, is refused there too; a pregen it adds holds its name at the
table, where `.pc claim` is the way to play it."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, human_keeper_narrates, system_answer
from loreweaver.testing.operator_http import OperatorSession


async def test_the_console_refuses_a_name_the_room_holds_and_its_pregen_holds_its_own(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as pat:
        await pat.join(server.env.mint(room, "Pat"))
        await system_answer(pat, ".coc Doc Hale")

        operator = OperatorSession(server)
        page, values = operator.form_values("/admin/keeper/character/add/")
        room_id = re.search(rf'<option value="(\d+)">{re.escape(room)}</option>', page).group(1)
        pregen = {**values, "room": room_id, "owner": "", "system": "coc7", "pregen": "on"}
        pregen.pop("active", None)
        refused = operator.post("/admin/keeper/character/add/", {**pregen, "name": " doc  HALE"}, page)
        assert "Another character of this room is already called Doc Hale." in refused
        added = operator.post("/admin/keeper/character/add/", {**pregen, "name": "Nell Reyes"}, page)
        assert "was added successfully" in added

        assert ".pc claim Nell Reyes" in await system_answer(pat, ".coc nell reyes")
        assert await system_answer(pat, ".pc claim nell reyes") == "Pat plays Nell Reyes."
        state = await pat.expect("state")
        assert sorted(member["name"] for member in state["party"]) == ["Nell Reyes"]
