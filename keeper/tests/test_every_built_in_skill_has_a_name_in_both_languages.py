"""Every skill and characteristic of the built-in rule packs has a name people read,
in English and in Chinese, in the games' established terms; typed, the Chinese name
means the same skill (docs/rules.md, "Rule packs")."""

from __future__ import annotations

import pytest

from keeper.rules.packs import BUILT_IN, BUILT_IN_DIR, load_pack


@pytest.mark.parametrize("pack_id", BUILT_IN)
def test_every_skill_and_characteristic_has_an_english_and_a_chinese_name(pack_id: str):
    sheet = load_pack(BUILT_IN_DIR / f"{pack_id}.yaml").sheet
    for key in [*sheet.attributes, *sheet.skills]:
        label = sheet.labels.get(key)
        assert label is not None and label.en and label.zh, f"{pack_id}: {key} has no name in both languages"
        assert sheet.canonical(label.zh) == key, f"{pack_id}: typing {label.zh} does not mean {key}"


@pytest.mark.parametrize(
    ("pack_id", "key", "en", "zh"),
    [
        ("coc7", "spot_hidden", "Spot Hidden", "侦查"),
        ("coc7", "library_use", "Library Use", "图书馆使用"),
        ("coc7", "fighting_brawl", "Fighting (Brawl)", "斗殴"),
        ("coc7", "POW", "Power", "意志"),
        ("dnd5e", "perception", "Perception", "察觉"),
        ("dnd5e", "stealth", "Stealth", "隐匿"),
        ("dnd5e", "WIS", "Wisdom", "感知"),
    ],
)
def test_the_names_are_the_games_own_terms(pack_id: str, key: str, en: str, zh: str):
    sheet = load_pack(BUILT_IN_DIR / f"{pack_id}.yaml").sheet
    assert (sheet.skill_label(key, "en"), sheet.skill_label(key, "zh")) == (en, zh)
