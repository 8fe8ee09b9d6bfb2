"""Who is at the table, beyond names (docs/decisions.md, "What a joiner receives"): each
`presence` entry also says the member's role, the carriers they are connected by and
their active character, and a character made later reaches the others' roster."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient, WsClient, system_answer


def _entry(presence: dict, name: str) -> dict:
    return next(p for p in presence["players"] if p["name"] == name)


async def test_presence_names_each_members_role_carriers_and_character(server, room):
    keeper_key = server.env.mint(room, "Kay", "keeper")
    player_key = server.env.mint(room, "Ira")
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await IrohClient.connect(server.ticket) as ira,
        await WsClient.connect(server.ws_url) as ira_again,
    ):
        await kay.join(keeper_key)
        await ira.join(player_key)
        await ira_again.join(player_key)
        both = await kay.expect("presence", online=2)
        while _entry(both, "Ira")["carriers"] != ["iroh", "ws"]:
            both = await kay.expect("presence", online=2)
        assert _entry(both, "Kay") == {
            "id": _entry(both, "Kay")["id"],
            "name": "Kay",
            "online": True,
            "role": "keeper",
            "carriers": ["ws"],
        }, "a member without a character is listed too, with no character"
        assert _entry(both, "Ira")["role"] == "player"

        assert "Mara" in await system_answer(ira, ".coc Mara")
        named = await kay.expect("presence")
        assert _entry(named, "Ira")["character"] == "Mara", "a character made later reaches the roster"
        assert "character" not in _entry(named, "Kay")
        assert (await kay.expect("state"))["party"][0]["name"] == "Mara"
