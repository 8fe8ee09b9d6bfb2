"""`manage.py pack build` refuses a pack whose card it cannot read and names the card
(docs/packs.md, "Card files"): a lorecard of a format version this server does not
read, a lorecard with a variable it cannot declare, a card file the folder lacks. A
lorecard it reads builds, and its kind is the split's. The command runs in the test's
process (`call_command`): a build reads no database and starts no server, and a
`CommandError` is what `manage.py` prints to stderr before it exits 1."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from packs import lwpack

CARD = {"format": "loreweaver.card", "format_version": 1, "name": "The Cloister", "opening": "Rain."}


def _folder(base: Path, card: dict | None) -> Path:
    folder = base / "cloister"
    (folder / "cards").mkdir(parents=True)
    if card is not None:
        (folder / "cards" / "cloister.lorecard.json").write_text(json.dumps(card))
    (folder / "pack.yaml").write_text(
        "id: cloister\nversion: 1.0.0\nname: Cloister\ndescription: A lorecard.\nauthors: [Tests]\n"
        "license: CC0-1.0\ncontents: {cards: [cards/cloister.lorecard.json]}\n"
    )
    return folder


def _build(folder: Path, out: Path) -> str:
    """`manage.py pack build FOLDER -o OUT`, its trust card (stdout) returned."""
    printed = io.StringIO()
    call_command("pack", "build", str(folder), "-o", str(out), stdout=printed, stderr=io.StringIO())
    return printed.getvalue()


@pytest.mark.parametrize(
    ("card", "problem"),
    [
        ({**CARD, "format_version": 2}, "is a Loreweaver card of format version 2"),
        (
            {**CARD, "variables": [{"id": "night", "kind": "number", "minimum": 3, "maximum": 0}]},
            "variables[0]",
        ),
        (None, "The pack names cards/cloister.lorecard.json, which is not in the folder."),
    ],
)
def test_a_card_it_cannot_read_stops_the_build_and_is_named(tmp_path, card, problem):
    with pytest.raises(CommandError) as refused:
        _build(_folder(tmp_path, card), tmp_path / "out.lwpack")

    assert "cards/cloister.lorecard.json" in str(refused.value) and problem in str(refused.value)
    assert not (tmp_path / "out.lwpack").exists()


def test_a_lorecard_it_reads_builds_with_its_kind(tmp_path):
    card = {**CARD, "variables": [{"id": "night", "kind": "number", "minimum": 0, "maximum": 3}]}
    printed = _build(_folder(tmp_path, card), tmp_path / "out.lwpack")

    assert printed.endswith(f"{tmp_path / 'out.lwpack'} ({(tmp_path / 'out.lwpack').stat().st_size} bytes)\n")
    pack = lwpack.open_pack((tmp_path / "out.lwpack").read_bytes())
    assert pack.cards == [{"path": "cards/cloister.lorecard.json", "name": "cloister", "kind": "world"}]
