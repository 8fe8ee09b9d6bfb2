"""A character is never replaced without a word (docs/rules.md, "Characters and their
names"): making a character under a name a sheet of the room already holds (compared
without regard to case, invisible characters or extra spaces) is refused with the way
forward; the member's own sheet gives way only to an explicit `replace`, another
member's never; and two characters of one name never stand in one party, whichever
way a character is made. Over real sockets against a real server."""

from __future__ import annotations

from collections import Counter

from keeper.kp.sample import GUIDED_ACTIONS
from loreweaver.testing.clients import WsClient, settle, state_now, state_where, system_answer
from loreweaver.testing.media_clients import sha, upload
from packs.tests.card_files import character, picture, text_chunk

ROPE = {"name": "Rope", "kind": "tool", "quantity": 2, "equipped": False, "description": ""}


def _party(state: dict) -> list[str]:
    return [member["name"] for member in state["party"]]


async def _doc_hale_with_rope_and_money(alice) -> None:
    await system_answer(alice, ".coc Doc Hale")
    await system_answer(alice, ".inv add Rope x2 | tool")
    await system_answer(alice, ".money +3")
    await state_where(alice, lambda s: s.get("character", {}).get("money") == 3)


async def test_genchar_over_the_members_own_name_is_refused_and_the_sheet_keeps_its_items(server, room):
    async with await WsClient.connect(server.ws_url) as alice:
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_with_rope_and_money(alice)

        refused = await system_answer(alice, ".genchar coc7 Doc Hale | A calm doctor with steady hands")
        assert "Doc Hale" in refused and ".genchar coc7 Doc Hale replace | " in refused, refused
        for typed in (".coc doc hale", ".dnd  DOC   HALE ", ".coc Doc\u200b Hale", ".coc Ｄｏｃ Ｈａｌｅ"):
            refused = await system_answer(alice, typed)
            assert "replace" in refused, (typed, refused)
        await system_answer(alice, ".genchar coc")
        assert "replace" in await system_answer(alice, ".genchar keep doc hale")

        state = await state_now(alice)
        sheet = state["character"]
        assert sheet["name"] == "Doc Hale" and sheet["items"] == [ROPE] and sheet["money"] == 3
        assert _party(state) == ["Doc Hale"]


async def test_with_replace_the_new_character_takes_the_place_of_the_members_old_one(server, room):
    async with await WsClient.connect(server.ws_url) as alice:
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_with_rope_and_money(alice)

        made = await system_answer(alice, ".genchar coc7 Doc Hale replace | A calm doctor with steady hands")
        assert "Doc Hale" in made and ".st undo" in made, made
        state = await state_where(alice, lambda s: s["character"]["items"] == [])
        assert state["character"]["name"] == "Doc Hale" and state["character"]["money"] == 0
        assert _party(state) == ["Doc Hale"]
        assert "calm doctor" in await system_answer(alice, ".bio")


async def test_a_name_another_member_holds_is_refused_whichever_way_a_character_is_made(server, room):
    card = picture(text_chunk(b"chara", character(name="Doc Hale", description="A calm doctor.")))
    async with (
        await WsClient.connect(server.ws_url) as alice,
        await WsClient.connect(server.ws_url) as bob,
    ):
        await alice.join(server.env.mint(room, "Alice"))
        await _doc_hale_with_rope_and_money(alice)
        await bob.join(server.env.mint(room, "Bob", "keeper"))  # a keeper replaces no one's either
        await upload(bob, card, "image/png", "doc-hale.png")
        await settle(bob)

        for typed in (
            ".coc doc hale",
            ".dnd DOC HALE",
            ".coc Doc Hale replace",
            ".genchar coc7 Doc Hale replace | A calm doctor",
            f".import {sha(card)} pc",
            f".import {sha(card)} pc replace",
        ):
            refused = await system_answer(bob, typed)
            assert "Doc Hale" in refused and "another name" in refused, (typed, refused)
        await system_answer(bob, ".genchar dnd")
        assert "another name" in await system_answer(bob, ".genchar keep Doc Hale")

        imported = await system_answer(bob, f".import {sha(card)} pc as Dr Hale")
        assert "Dr Hale joins the table" in imported, imported
        state = await state_where(alice, lambda s: "Dr Hale" in _party(s))
        assert sorted(_party(state)) == ["Doc Hale", "Dr Hale"]
        assert state["character"]["items"] == [ROPE] and state["character"]["money"] == 3


async def test_two_characters_of_one_name_never_stand_in_one_party(server, room):
    async with (
        await WsClient.connect(server.ws_url) as alice,
        await WsClient.connect(server.ws_url) as bob,
    ):
        await alice.join(server.env.mint(room, "Alice"))
        await bob.join(server.env.mint(room, "Bob"), locale="zh")
        await system_answer(alice, ".coc Wren Hale")
        await state_where(bob, lambda s: "Wren Hale" in _party(s))
        await system_answer(bob, ".coc Bob")
        await state_where(alice, lambda s: "Bob" in _party(s))
        assert "请换一个名字（.nn <另一个名字>）" in await system_answer(bob, ".nn wren hale")
        assert "another name" in await system_answer(alice, ".coc  BOB ")
        assert sorted(_party(await state_now(bob))) == ["Bob", "Wren Hale"]


async def test_the_sample_adventure_never_gives_its_investigator_a_name_the_party_holds(server, room):
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as pat,
        await WsClient.connect(server.ws_url) as kim,
    ):
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await pat.join(server.env.mint(room, "Pat"))
        await kim.join(server.env.mint(room, "Kim"))
        await system_answer(pat, ".coc Kim")  # Pat's character carries another player's name
        await state_where(kay, lambda s: "Kim" in _party(s))
        await kay.say(GUIDED_ACTIONS[0])
        await state_where(kay, lambda s: s.get("scene", {}).get("name"), timeout=30)
        await kim.say("I look around the quay.")  # the adventure makes Kim an investigator
        state = await state_where(kim, lambda s: "character" in s, timeout=30)
        assert state["character"]["name"] != "Kim"
        party = Counter(name.casefold() for name in _party(state))
        assert party["kim"] == 1 and max(party.values()) == 1, party
