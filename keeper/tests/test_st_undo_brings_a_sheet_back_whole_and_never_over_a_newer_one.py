"""`.st undo` (docs/rules.md, "Characters and their names"): a deleted sheet comes back
with what it carried and its money; it never takes the place of a newer character
without the word `replace` (which swaps them, the newer one kept for `.st undo` in
turn), and never comes back under a name another member's character took meanwhile:
`.st undo <another name>` brings it back under a new one. Over real sockets."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, state_now, state_where, system_answer

ROPE = {"name": "Rope", "kind": "tool", "quantity": 2, "equipped": False, "description": ""}
LAMP = {"name": "Lamp", "kind": "misc", "quantity": 1, "equipped": False, "description": ""}


def _party(state: dict) -> list[str]:
    return sorted(member["name"] for member in state["party"])


async def _doc_hale_deleted(alice) -> None:
    """Alice's Doc Hale, with two ropes and three dollars, deleted."""
    await system_answer(alice, ".coc Doc Hale")
    await system_answer(alice, ".inv add Rope x2 | tool")
    await system_answer(alice, ".money +3")
    await state_where(alice, lambda s: s.get("character", {}).get("money") == 3)
    assert "Doc Hale" in await system_answer(alice, ".st delete")


async def test_a_deleted_sheet_comes_back_with_its_items_and_money(server, room):
    async with await WsClient.connect(server.ws_url) as alice:
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_deleted(alice)
        assert "Doc Hale" in await system_answer(alice, ".st undo")
        sheet = (await state_now(alice))["character"]
        assert sheet["name"] == "Doc Hale" and sheet["items"] == [ROPE] and sheet["money"] == 3


async def test_undo_over_a_newer_character_is_refused_and_replace_swaps_them(server, room):
    async with await WsClient.connect(server.ws_url) as alice:
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_deleted(alice)
        await system_answer(alice, ".coc Ann")
        await system_answer(alice, ".inv add Lamp")

        refused = await system_answer(alice, ".st undo")
        assert "Ann" in refused and ".st undo replace" in refused, refused
        state = await state_now(alice)
        assert state["character"]["name"] == "Ann" and state["character"]["items"] == [LAMP]
        assert _party(state) == ["Ann"]

        assert "Doc Hale" in await system_answer(alice, ".st undo replace")
        state = await state_now(alice)
        assert state["character"]["name"] == "Doc Hale" and state["character"]["items"] == [ROPE]
        assert state["character"]["money"] == 3 and _party(state) == ["Doc Hale"]

        assert "Ann" in await system_answer(alice, ".st undo replace")
        state = await state_now(alice)
        assert state["character"]["name"] == "Ann" and state["character"]["items"] == [LAMP]
        assert _party(state) == ["Ann"]


async def test_undo_under_a_name_another_member_took_is_refused_until_given_another(server, room):
    async with (
        await WsClient.connect(server.ws_url) as alice,
        await WsClient.connect(server.ws_url) as bob,
    ):
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_deleted(alice)
        await bob.join(server.env.mint(room, "Bob"))
        await system_answer(bob, ".coc doc hale")
        await state_where(alice, lambda s: _party(s) == ["doc hale"])

        refused = await system_answer(alice, ".st undo")
        assert "doc hale" in refused and ".st undo <" in refused, refused
        assert "another name" in await system_answer(alice, ".st undo replace")
        state = await state_now(bob)
        assert _party(state) == ["doc hale"] and state["character"]["items"] == []

        assert "Dr Hale" in await system_answer(alice, ".st undo Dr Hale")
        state = await state_now(alice)
        assert state["character"]["name"] == "Dr Hale" and state["character"]["items"] == [ROPE]
        assert _party(state) == ["Dr Hale", "doc hale"]
