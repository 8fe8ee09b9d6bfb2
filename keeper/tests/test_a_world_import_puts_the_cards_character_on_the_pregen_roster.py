"""A keeper's `.import <ref> world` of a card with a character half puts that character
on the room's pregenerated roster, as the reference's world import does (docs/packs.md,
"Card import"): the reply says so, `.pc list` and `state.pregens` carry it, a player
claims it, and importing the card again keeps the claim. Loreweaver Studio's own
SillyTavern export (a name, a description and an opening) is such a card; its lorecard
export, whose prose tells a module and which has no personality, puts no one there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loreweaver.testing.clients import WsClient, settle, state_now, system_answer
from packs import lwpack

FIXTURES = Path(__file__).resolve().parents[2] / "packs" / "tests" / "fixtures"
EXPORTS = ("studio_export.st.json", "studio_export.lorecard.json")
PACK = "roster-exports"


@pytest.fixture(scope="module")
def roster_pack(server, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("roster") / PACK
    (folder / "cards").mkdir(parents=True)
    for name in EXPORTS:
        shutil.copy(FIXTURES / name, folder / "cards" / name)
    listed = ", ".join(f"cards/{name}" for name in EXPORTS)
    (folder / "pack.yaml").write_text(
        f"id: {PACK}\nversion: 1.0.0\nname: Roster\ndescription: Studio's exports.\n"
        f"authors: [Tests]\nlicense: MIT\ncontents: {{cards: [{listed}]}}\n"
    )
    built = folder.parent / f"{PACK}.lwpack"
    built.write_bytes(lwpack.build(folder))
    installed = server.env.manage("pack", "install", str(built), "--yes")
    assert installed.returncode == 0, installed.stderr


async def test_the_cards_character_is_a_pregen_a_player_claims_and_a_reimport_keeps_the_claim(
    server, roster_pack, room
):
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as pip,
    ):
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await pip.join(server.env.mint(room, "Pip"))
        await settle(pip)
        reply = await system_answer(kay, f".import {PACK}/cards/studio_export.st.json world")
        assert "Imported the world of 回廊公寓" in reply
        assert (
            "回廊公寓 is on this room's pregenerated roster: a player takes it with .pc claim 回廊公寓."
            in reply
        )

        assert await system_answer(pip, ".pc list") == "回廊公寓: free"
        assert (await state_now(pip))["pregens"] == [{"name": "回廊公寓", "claimed_by": ""}]
        assert "plays 回廊公寓" in await system_answer(pip, ".pc claim 回廊公寓")
        await settle(kay)  # the claim is told to the table
        again = await system_answer(kay, f".import {PACK}/cards/studio_export.st.json world")
        assert "回廊公寓 is on this room's pregenerated roster" in again
        state = await state_now(pip)
        assert [row["name"] for row in state["pregens"]] == ["回廊公寓"]
        assert state["pregens"][0]["claimed_by"] and state["character"]["name"] == "回廊公寓"


async def test_a_lorecard_without_a_personality_puts_no_one_on_the_roster(server, roster_pack, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        reply = await system_answer(kay, f".import {PACK}/cards/studio_export.lorecard.json world")
        assert "Imported the world of 回廊公寓" in reply and "pregenerated roster" not in reply
        assert await system_answer(kay, ".pc list") == "This table has no pregenerated characters."
        assert "pregens" not in await state_now(kay)
