"""A Loreweaver lorecard imported at a live table (docs/packs.md, "Card import"): the
pack lists it as a world card, so Studio's Import button sends `.import <ref> world`,
which takes it in one step. Its typed variable `night` keeps its id, bounds and label
(never `mvu.night`), its secret entry and its keeper-only variable never reach a
player's connection, its hook runs after the Keeper's turn, its opening is in the
Keeper's brief (keeper-only), and the split names what could not land."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loreweaver.testing.clients import WsClient, settle, state_now, system_answer, until_idle
from loreweaver.testing.fake_llm import Text
from packs import lwpack

REF = "cloister/cards/cloister.lorecard.json"
SECRET = "The caretaker stopped being human in 1931."
OPENING = "Rain on the door plates; the numbers flicker."
HOOK = 'on("reply_ready", () => emitUI([{kind: "text", text: "The fifth floor is there."}]));'
CARD = {
    "format": "loreweaver.card",
    "format_version": 1,
    "name": "The Cloister",
    "description": "A block of flats with a fifth floor on rainy nights.",
    "opening": OPENING,
    "variables": [
        {
            "id": "night",
            "kind": "number",
            "visibility": "keeper",
            "labels": {"en": "Night", "zh": "夜"},
            "default": 1,
            "minimum": 0,
            "maximum": 3,
        },
        {
            "id": "door",
            "kind": "enum",
            "options": ["red", "grey"],
            "default": "grey",
            "labels": {"en": "Door"},
        },
    ],
    "worldbook": [
        {"title": "The rule", "content": "Floor five comes with the rain.", "keys": ["floor five"]},
        {"title": "The caretaker", "content": SECRET, "keys": ["caretaker"], "secret": True},
        {
            "title": "Roster",
            "content": "A wet line on the last page.",
            "keys": ["roster"],
            "condition": "night >= 2",
        },
    ],
    "hooks": [HOOK],
}


@pytest.fixture(scope="module")
def cloister(ai_server, tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("lorecard") / "cloister"
    (folder / "cards").mkdir(parents=True)
    (folder / "cards" / "cloister.lorecard.json").write_text(json.dumps(CARD))
    (folder / "pack.yaml").write_text(
        "id: cloister\nversion: 1.0.0\nname: Cloister\ndescription: A lorecard.\nauthors: [Tests]\n"
        "license: CC0-1.0\ncontents: {cards: [cards/cloister.lorecard.json]}\n"
    )
    built = folder.parent / "cloister.lwpack"
    built.write_bytes(lwpack.build(Path(folder)))
    installed = ai_server.env.manage("pack", "install", str(built), "--yes")
    assert installed.returncode == 0, installed.stderr
    return REF


def _recording(client: WsClient) -> list[dict]:
    """Every frame `client` reads from now on, kept for a look at the end."""
    seen: list[dict] = []
    receive = client.recv

    async def recv(timeout: float = 10) -> dict:
        frame = await receive(timeout)
        seen.append(frame)
        return frame

    client.recv = recv  # type: ignore[method-assign]
    return seen


def _variables(state: dict) -> dict[str, dict]:
    return {row["id"]: row for row in state.get("variables", [])}


async def test_a_keepers_one_click_import_lands_variables_lore_hooks_and_opening(
    ai_server, cloister, llm, room
):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as kay,
        await WsClient.connect(ai_server.ws_url) as pip,
    ):
        seen_by_pip = _recording(pip)
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await settle(pip)

        await pip.send({"type": "list_pack_cards"})
        listed = {card["ref"]: card["kind"] for card in (await pip.expect("pack_cards"))["cards"]}
        assert listed[REF] == "world"

        reply = await system_answer(kay, f".import {REF} world")
        assert "Imported the world of The Cloister: 3 lore entries, 2 new typed variables" in reply
        assert "1 hook scripts" in reply and "1 of them keeper-only (secret)" in reply
        assert "night (0–3)" in reply
        assert "Left out: condition of Roster (@@if night >= 2)." in reply

        keeper_view = _variables(await state_now(kay))
        assert keeper_view["night"] == {
            "id": "night",
            "label": "Night",
            "kind": "number",
            "value": 1,
            "min": 0,
            "max": 3,
            "keeper_only": True,
        }
        assert "mvu.night" not in keeper_view
        assert "must stay between 0 and 3" in await system_answer(kay, ".var set night 5")
        player_view = _variables(await state_now(pip))
        assert "night" not in player_view and player_view["door"]["value"] == "grey"

        lore_for_pip = await system_answer(pip, ".lore list")
        assert "The rule" in lore_for_pip and "Roster" in lore_for_pip and "caretaker" not in lore_for_pip
        assert "No lore matches" in await system_answer(pip, ".lore query caretaker")
        assert "The caretaker (keepers)" in await system_answer(kay, ".lore list")

        llm.script(Text("The stairwell smells of rain."))
        await pip.say("I climb the stairs.")
        frames = await until_idle(pip)
        hooked = [frame for frame in frames if frame["type"] == "ui"]
        assert [frame["blocks"] for frame in hooked] == [
            [{"kind": "text", "text": "The fifth floor is there."}]
        ]
        brief = llm.chat_requests()[-1]["messages"][0]["content"]
        assert OPENING in brief and brief.index("KEEPER ONLY") < brief.index(OPENING)
        await settle(pip)

    everything = json.dumps(seen_by_pip, ensure_ascii=False)
    assert SECRET not in everything and OPENING not in everything
    assert '"night"' not in everything, "a keeper-only variable never reaches a player"
