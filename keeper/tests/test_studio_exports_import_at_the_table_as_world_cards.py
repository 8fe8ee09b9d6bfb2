"""Loreweaver Studio's three exports of one project (packs/tests/fixtures/, made by its
real exporters) in a pack at a live table (docs/packs.md, "Card import"): each is
listed as a world card, and a keeper's `.import <ref> world` takes each in one step
with the split the reference asserts: the picture and the SillyTavern card bring their
`[InitVar]` tree (世界.公寓.五层可见 false) as hidden MVU variables and their lore,
the update rules and the entry's condition named as left out; the lorecard brings its
typed variables (理智 a number from 0 to 100) and keeps 管理员的秘密 from the players."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loreweaver.testing.clients import WsClient, settle, state_now, system_answer
from packs import lwpack

FIXTURES = Path(__file__).resolve().parents[2] / "packs" / "tests" / "fixtures"
EXPORTS = ("studio_export.png", "studio_export.st.json", "studio_export.lorecard.json")


@pytest.fixture(scope="module")
def studio_pack(ai_server, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("studio") / "studio-exports"
    (folder / "cards").mkdir(parents=True)
    for name in EXPORTS:
        shutil.copy(FIXTURES / name, folder / "cards" / name)
    listed = ", ".join(f"cards/{name}" for name in EXPORTS)
    (folder / "pack.yaml").write_text(
        "id: studio-exports\nversion: 1.0.0\nname: Studio exports\ndescription: One project, three ways.\n"
        f"authors: [Tests]\nlicense: MIT\ncontents: {{cards: [{listed}]}}\n"
    )
    built = folder.parent / "studio-exports.lwpack"
    built.write_bytes(lwpack.build(folder))
    installed = ai_server.env.manage("pack", "install", str(built), "--yes")
    assert installed.returncode == 0, installed.stderr


def _variables(state: dict) -> dict[str, dict]:
    return {row["id"]: row for row in state.get("variables", [])}


async def test_every_studio_export_is_listed_as_a_world_card(ai_server, studio_pack, room):
    async with await WsClient.connect(ai_server.ws_url) as pip:
        await pip.join(ai_server.env.mint(room, "Pip"))
        await pip.send({"type": "list_pack_cards"})
        cards = (await pip.expect("pack_cards"))["cards"]
    kinds = {card["ref"]: card["kind"] for card in cards if card["pack"] == "studio-exports"}
    assert kinds == {f"studio-exports/cards/{name}": "world" for name in EXPORTS}


@pytest.mark.parametrize("name", ["studio_export.png", "studio_export.st.json"])
async def test_a_sillytavern_export_brings_its_initvar_tree_and_names_what_it_leaves(
    ai_server, studio_pack, room, name
):
    async with await WsClient.connect(ai_server.ws_url) as kay:
        await kay.join(ai_server.env.mint(room, "Kay", "keeper"))
        reply = await system_answer(kay, f".import studio-exports/cards/{name} world")
        assert "Imported the world of 回廊公寓" in reply
        assert "五层的规则" in reply and "管理员的秘密" in reply and "住户名册" in reply
        left_out = next(line for line in reply.splitlines() if line.startswith("Left out:"))
        assert "MVU update rules" in left_out and "condition of 住户名册 (@@if 世界.日 >= 2)" in left_out
        variables = _variables(await state_now(kay))
        assert variables["mvu.世界.公寓.五层可见"]["value"] is False
        assert variables["mvu.玩家.理智"]["value"] == 80 and variables["mvu.玩家.理智"]["hidden"] is True


async def test_the_lorecard_brings_typed_variables_and_keeps_its_secret_from_players(
    ai_server, studio_pack, room
):
    async with (
        await WsClient.connect(ai_server.ws_url) as kay,
        await WsClient.connect(ai_server.ws_url) as pip,
    ):
        await kay.join(ai_server.env.mint(room, "Kay", "keeper"))
        await pip.join(ai_server.env.mint(room, "Pip"))
        await settle(pip)
        reply = await system_answer(kay, ".import studio-exports/cards/studio_export.lorecard.json world")
        assert "3 lore entries, 2 new typed variables, 0 new MVU variables" in reply
        assert "理智 (0–100)" in reply and "真相进度 (0–5)" in reply

        keeper_view = _variables(await state_now(kay))
        assert keeper_view["理智"]["value"] == 80 and (
            keeper_view["理智"]["min"],
            keeper_view["理智"]["max"],
        ) == (0, 100)
        assert keeper_view["理智"]["label"] == "Sanity" and keeper_view["真相进度"]["keeper_only"] is True
        player_view = _variables(await state_now(pip))
        assert "理智" in player_view and "真相进度" not in player_view

        assert "管理员的秘密" not in await system_answer(pip, ".lore list")
        assert "管理员的秘密 (keepers)" in await system_answer(kay, ".lore list")
