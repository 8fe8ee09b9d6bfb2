"""The split a keeper reads before a lorecard's world import (docs/packs.md, "Card
import") names the card's character fields as its format spells them (`opening`,
`author_notes`, never SillyTavern's `first_mes`, `creator_notes`), and says nothing of
MVU variables when the card has none; a SillyTavern card's split keeps its own names
and its MVU line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loreweaver.testing.clients import WsClient, system_answer
from packs import lwpack

FIXTURES = Path(__file__).resolve().parents[2] / "packs" / "tests" / "fixtures"
EXPORTS = ("studio_export.st.json", "studio_export.lorecard.json")
PACK = "split-lines"


@pytest.fixture(scope="module")
def split_pack(server, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("split") / PACK
    (folder / "cards").mkdir(parents=True)
    for name in EXPORTS:
        shutil.copy(FIXTURES / name, folder / "cards" / name)
    listed = ", ".join(f"cards/{name}" for name in EXPORTS)
    (folder / "pack.yaml").write_text(
        f"id: {PACK}\nversion: 1.0.0\nname: Split\ndescription: Studio's exports.\n"
        f"authors: [Tests]\nlicense: MIT\ncontents: {{cards: [{listed}]}}\n"
    )
    built = folder.parent / f"{PACK}.lwpack"
    built.write_bytes(lwpack.build(folder))
    installed = server.env.manage("pack", "install", str(built), "--yes")
    assert installed.returncode == 0, installed.stderr


def _line(reply: str, start: str) -> str:
    return next(line for line in reply.splitlines() if line.startswith(start))


async def test_the_lorecards_split_names_opening_and_author_notes_and_no_mvu_line(server, split_pack, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        reply = await system_answer(kay, f".import {PACK}/cards/studio_export.lorecard.json world preview")
        assert _line(reply, "Character half:") == (
            "Character half: name, description, scenario, opening, author_notes, tags."
        )
        assert "MVU" not in reply and "()" not in reply

        sillytavern = await system_answer(kay, f".import {PACK}/cards/studio_export.st.json world preview")
        assert _line(sillytavern, "Character half:") == (
            "Character half: name, description, scenario, first_mes, creator_notes, tags."
        )
        assert "4 MVU variables, hidden from players until exposed (世界.日, 世界.时段" in sillytavern
