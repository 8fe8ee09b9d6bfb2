"""Loreweaver Studio's three exports of one project (回廊公寓), made by its real exporters
and kept in packs/tests/fixtures/ (see LICENSE-loreweaver.txt): a card picture, a
SillyTavern card and a native lorecard. Each splits as the reference splits it
(docs/packs.md, "Card files" and "Card import"): the picture's `[InitVar]` YAML tree
with its nested Chinese paths, its update rules left out, its secret and its
conditioned entry; a world card by its machinery."""

from __future__ import annotations

import struct
from pathlib import Path

from packs.cards import read_card, split_card

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _split(name: str):
    return split_card(f"cards/{name}", (FIXTURES / name).read_bytes())


def _titles(split) -> list[str]:
    return [entry.title for entry in split.lore]


def test_the_card_picture_is_a_world_card_with_its_initvar_tree_and_its_lore():
    split = _split("studio_export.png")

    assert split.name == "回廊公寓" and split.kind == "world"
    assert dict(split.mvu)["世界.公寓.五层可见"] is False  # the YAML tree, nested Chinese paths intact
    assert dict(split.mvu)["玩家.理智"] == 80
    assert {"五层的规则", "管理员的秘密", "住户名册"} <= set(_titles(split))
    assert "MVU update rules" in split.discarded  # the 变量更新规则 entry is machinery, named
    roster = next(entry for entry in split.lore if entry.title == "住户名册")
    assert roster.content == "名册末页有一行湿掉的字。"
    assert "condition of 住户名册 (@@if 世界.日 >= 2)" in split.discarded
    assert (
        read_card("cards/studio_export.png", (FIXTURES / "studio_export.png").read_bytes())["kind"] == "world"
    )


def test_the_card_picture_carries_one_chara_and_one_ccv3_chunk():
    data = (FIXTURES / "studio_export.png").read_bytes()
    keywords, position = [], 8
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keywords.append(data[position + 8 : position + 8 + length].split(b"\0", 1)[0].decode("latin1"))
        position += 12 + length
    assert sorted(keywords) == ["ccv3", "chara"]


def test_the_sillytavern_card_splits_as_the_picture_does():
    card, picture = _split("studio_export.st.json"), _split("studio_export.png")

    assert card.name == "回廊公寓" and card.kind == "world"
    assert "管理员的秘密" in _titles(card)
    assert (card.mvu, _titles(card), card.discarded) == (picture.mvu, _titles(picture), picture.discarded)


def test_the_lorecard_keeps_its_typed_variables_its_secret_and_names_its_condition():
    split = _split("studio_export.lorecard.json")

    assert split.name == "回廊公寓" and split.kind == "world"
    variables = {spec["id"]: spec for spec in split.variables}
    assert variables["理智"] == {
        "id": "理智",
        "kind": "number",
        "label": {"en": "Sanity", "zh": "理智"},
        "value": 80,
        "min": 0,
        "max": 100,
        "audience": "everyone",
    }
    assert variables["真相进度"]["audience"] == "keepers"
    secrets = {entry.title: entry.secret for entry in split.lore}
    assert secrets == {"五层的规则": False, "管理员的秘密": True, "住户名册": False}
    assert "condition of 住户名册 (@@if 世界.日 >= 2)" in split.discarded
    assert split.character["first_mes"] == "雨声里，公寓的门牌忽明忽暗。"  # its opening
    assert split.openings == ["你在五层的楼梯间醒来。"]
    assert split.persona is False  # a module, not someone a player could be
