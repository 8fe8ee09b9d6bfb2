"""`.import` at a live table (docs/packs.md, "Card import"): a V2 picture card and a V3
JSON card with MVU variables and a lorebook, both world cards by their `[InitVar]`. A
player makes a character from a card's character half, and is told the world half
stays with the keeper; a keeper's `.import <ref> world` takes the world half in one
step (`world preview` only shows the split); players see only the MVU leaves the
keeper exposed; a lorebook keyword in a later line puts the entry into the Keeper's
brief (read off the scripted model server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreweaver.testing.clients import WsClient, settle, until_idle
from loreweaver.testing.fake_llm import Text
from loreweaver.testing.media_clients import sha, upload
from packs import lwpack
from packs.tests.card_files import as_json, character, picture, text_chunk

CHAPEL = "The chapel sank in 1802; its bell still rings at low tide."
ADA = character(
    description="A harbour archivist who reads tide tables for fun.",
    personality="Dry, patient, stubborn.",
    character_book={
        "entries": [
            {
                "keys": ["chapel", "礼拜堂"],
                "content": CHAPEL,
                "comment": "The drowned chapel",
                "insertion_order": 10,
                "enabled": True,
            },
            {
                "keys": [],
                "comment": "[InitVar] starting values",
                "content": '{"stats": {"hp": [10, "health"], "mood": "calm"}, "world": {"day": 1}}',
                "enabled": True,
            },
        ]
    },
)
HARBOUR = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "Kingsmouth",
        "character_book": {
            "entries": [
                {
                    "keys": ["lighthouse"],
                    "content": "The lamp has been dark for three nights.",
                    "comment": "Gull Rock",
                },
                {"keys": [], "comment": "[InitVar]", "content": "tide: 3\nweather: fog\n"},
            ]
        },
    },
}


@pytest.fixture(scope="module")
def card_pack(ai_server, tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("cards") / "card-pack"
    (folder / "cards").mkdir(parents=True)
    (folder / "cards" / "ada.png").write_bytes(picture(text_chunk(b"chara", ADA)))
    (folder / "cards" / "harbour.json").write_bytes(as_json(HARBOUR))
    (folder / "pack.yaml").write_text(
        "id: card-pack\nversion: 1.0.0\nname: Cards\ndescription: Two cards.\nauthors: [Tests]\n"
        "license: CC0-1.0\ncontents: {cards: [cards/ada.png, cards/harbour.json]}\n"
    )
    built = folder.parent / "card-pack.lwpack"
    built.write_bytes(lwpack.build(Path(folder)))
    installed = ai_server.env.manage("pack", "install", str(built), "--yes")
    assert installed.returncode == 0, installed.stderr
    return "card-pack"


def _mvu(state: dict) -> dict[str, dict]:
    return {row["id"]: row for row in state.get("variables", []) if row["id"].startswith("mvu.")}


async def _states_until(client, wanted) -> list[dict]:
    """Every `state` the client gets up to the first for which `wanted(state)` holds."""
    states = [await client.expect("state")]
    while not wanted(states[-1]):
        states.append(await client.expect("state"))
    return states


async def _reply(client) -> str:
    return (await client.expect("narrative", speaker="system"))["text"]


async def test_a_player_makes_a_character_from_a_card(ai_server, card_pack, room):
    env = ai_server.env
    async with await WsClient.connect(ai_server.ws_url) as pip:
        await pip.join(env.mint(room, "Pip"))
        await pip.say(".import list")
        listed = await _reply(pip)
        assert "card-pack/cards/ada.png · world" in listed
        assert "card-pack/cards/harbour.json · world" in listed

        await pip.say(".import card-pack/cards/harbour.json pc")
        assert ".import card-pack/cards/harbour.json world" in await _reply(pip)
        await pip.say(".import card-pack/cards/harbour.json world")
        assert "keeper" in (await _reply(pip)).lower()

        await pip.say(".import card-pack/cards/ada.png pc")
        joined = await _reply(pip)
        assert "Ada joins the table" in joined
        assert "the world half of Ada is a keeper's, with .import card-pack/cards/ada.png world" in joined
        state = await pip.expect("state")
        assert state["character"]["name"] == "Ada" and state["character"]["system"] == "coc7"

        # The same card uploaded as a picture: imported by its hash, it is the portrait too.
        data = picture(text_chunk(b"chara", ADA))
        await upload(pip, data, "image/png", "ada.png")
        await settle(pip)
        await pip.say(f".import {sha(data)} dnd5e pc")  # Ada is taken: Pip's own, so replace may
        assert f".import {sha(data)} dnd5e pc as Ada replace" in await _reply(pip)
        await pip.say(f".import {sha(data)} dnd5e pc replace")
        await _reply(pip)
        state = await pip.expect("state")
        assert state["character"]["system"] == "dnd5e"
        assert state["character"]["avatar"]["hash"] == sha(data)


async def test_a_world_import_applies_in_one_step_and_hides_mvu_leaves_until_exposed(
    ai_server, card_pack, room
):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as kay,
        await WsClient.connect(ai_server.ws_url) as pip,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await settle(pip)

        await kay.say(".import card-pack/cards/harbour.json world preview")
        split = await _reply(kay)
        assert "1 lore entries (Gull Rock)" in split and "2 MVU variables" in split
        assert "To take the world half into this room: .import card-pack/cards/harbour.json world" in split
        await kay.say(".var list")
        assert "mvu." not in await _reply(kay), "the preview changes nothing"

        await kay.say(".import card-pack/cards/harbour.json world")
        applied = await _reply(kay)
        assert "1 lore entries (Gull Rock)" in applied, "the split comes with it"
        assert "1 lore entries, 0 new typed variables, 2 new MVU variables" in applied
        keeper_state = (await _states_until(kay, _mvu))[-1]
        assert {key: row["value"] for key, row in _mvu(keeper_state).items()} == {
            "mvu.tide": 3,
            "mvu.weather": "fog",
        }
        assert all(row["hidden"] for row in _mvu(keeper_state).values())

        await kay.say(".var expose mvu.tide")
        await _reply(kay)
        seen = await _states_until(pip, _mvu)
        assert [list(_mvu(state)) for state in seen if _mvu(state)] == [["mvu.tide"]], "never a hidden leaf"
        assert seen[-1]["variables"][0]["label"] == "tide" and "hidden" not in seen[-1]["variables"][0]

        # Importing it again replaces its lore and keeps the values.
        await kay.say(".var set mvu.tide 5")
        await _reply(kay)
        await kay.say(".import card-pack/cards/harbour.json world apply")  # the old confirmation
        assert "1 lore entries, 0 new typed variables, 0 new MVU variables" in await _reply(kay)
        seen = await _states_until(pip, lambda state: _mvu(state).get("mvu.tide", {}).get("value") == 5)
        assert "mvu.weather" not in _mvu(seen[-1])


async def test_a_lorebook_keyword_in_a_later_line_reaches_the_keepers_brief(ai_server, card_pack, llm, room):
    env = ai_server.env
    async with await WsClient.connect(ai_server.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await kay.say(".import card-pack/cards/ada.png world")
        assert "1 lore entries, 0 new typed variables, 3 new MVU variables" in await _reply(kay)
        await settle(kay)

        llm.script(Text("The sea is grey."))
        await kay.say("I look out to sea.")
        await until_idle(kay)
        brief = llm.chat_requests()[-1]["messages"][0]["content"]
        assert CHAPEL not in brief

        llm.script(Text("The tide is out."))
        await kay.say("I ask Ruth about the old chapel.")
        await until_idle(kay)
        brief = llm.chat_requests()[-1]["messages"][0]["content"]
        assert CHAPEL in brief and brief.index("KEEPER ONLY") < brief.index(CHAPEL)
