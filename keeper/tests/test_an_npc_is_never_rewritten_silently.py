"""An NPC is never rewritten without a word (docs/rules.md, "Characters and their
names"): `.npc add` (and SideQuest's `/gm spawn`, which plays it) of a name the room's
NPCs already hold, in any case or spacing, keeps the NPC's persona and secret; only
`.npc add <name> replace | … | …` rewrites them. Over a real socket."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient


async def _answer(client, line: str) -> str:
    await client.say(line)
    return (await client.expect("narrative", speaker="system"))["text"]


async def test_adding_an_npc_the_room_has_keeps_them_unless_told_to_replace(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await _answer(kay, ".npc add Silas Reed | the lighthouse keeper | he rang the bell")

        assert "already" in await _answer(kay, ".npc add silas  reed | |")  # as /gm spawn sends it
        refused = await _answer(kay, ".npc add SILAS REED | a baker | flour")
        assert ".npc add Silas Reed replace | " in refused, refused
        assert await _answer(kay, ".npc") == "Silas Reed: the lighthouse keeper [secret: he rang the bell]"

        assert "Silas Reed" in await _answer(kay, ".npc add silas reed replace | a baker | flour")
        assert await _answer(kay, ".npc") == "Silas Reed: a baker [secret: flour]"
