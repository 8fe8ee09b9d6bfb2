"""A card splits into its halves (拆卡): the character's text fields, and the world half
of lorebook entries, MVU initial variables and hook scripts, with what is not imported
named (packs/cards.py). A card carrying machinery (an `[InitVar]` entry, hook scripts)
is a world card, whatever persona it has (docs/packs.md, "Card files")."""

from __future__ import annotations

import json

from packs.cards import MAX_FIELD_CHARS, LoreBookEntry, read_card, split_card
from packs.tests.card_files import as_json, character, chunk, picture, text_chunk, with_entries

INIT_VARIABLES = {
    "世界": {"时间": ["黄昏", "the hour of the day"], "地点": "Kingsport"},
    "stats": {"hp": [12, "hit points"], "sanity": 60, "afraid": False, "luck": 0.5, "lost": None},
    "inventory": ["lamp", "rope", "map"],
    "$meta": {"extensible": True},
}

OLD_TOM = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Old Tom",
        "description": "A retired fisherman who mends nets by the harbour office.",
        "personality": "Gruff, patient.",
        "scenario": "Kingsport harbour, the week the lights went out.",
        "first_mes": "Tide's wrong tonight.",
        "mes_example": "",
        "creator_notes": "Part of the harbour-clues example.",
        "tags": ["coc", " harbour "],
        "system_prompt": "You are Old Tom.",
        "post_history_instructions": "",
        "alternate_greetings": ["Evening.", "You again?"],
        "character_book": {
            "name": "Tom's harbour",
            "entries": [
                {
                    "keys": [],
                    "comment": "[InitVar] 初始变量",
                    "content": json.dumps(INIT_VARIABLES, ensure_ascii=False),
                    "enabled": False,
                    "insertion_order": 0,
                },
                {
                    "keys": ["变量"],
                    "comment": "[mvu_update] 变量更新规则",
                    "content": "After each reply, write <UpdateVariable> with _.set(path, old, new).",
                    "enabled": True,
                    "insertion_order": 1,
                },
                {
                    "keys": ["tide", "tides"],
                    "comment": "The tide",
                    "content": "The tide has run wrong since the storm.",
                    "constant": True,
                    "selective": False,
                    "enabled": True,
                    "insertion_order": 10,
                },
                {
                    "keys": ["lamp"],
                    "secondary_keys": ["night", "dark"],
                    "content": "The pier lamps light themselves some nights.",
                    "selective": True,
                    "enabled": True,
                    "insertion_order": 20,
                },
            ],
        },
        "extensions": {
            "regex_scripts": [
                {"scriptName": "hide status"},
                {"scriptName": "status bar"},
                {"scriptName": "x"},
            ],
            "depth_prompt": {"prompt": "", "depth": 4},
        },
    },
}

HARBOUR_YAML = """```yaml
角色:
  好感度: [0, "affection, 0 to 100"]
  状态: 平静
日期: 2024-05-01
线索:
  - ledger
```"""

HARBOURMASTER = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "The harbourmaster",
        "description": "Keeps the ledger of every boat.",
        "first_mes": "Name and boat?",
        "tags": [],
        "group_only_greetings": ["Who are all of you?"],
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        "character_book": {
            "entries": [
                {"keys": [], "comment": "[initvar]", "content": HARBOUR_YAML, "enabled": False},
                {"keys": ["plot"], "comment": "[mvu_plot] act one", "content": "Act one.", "enabled": True},
                {
                    "keys": ["ledger"],
                    "name": "The ledger",
                    "content": "Every boat, every tide.",
                    "enabled": True,
                },
            ]
        },
        "extensions": {
            "loreweaver_hooks": ["on_turn(lambda room: None)", "  "],
            "tavern_helper": {"scripts": [{"name": "status"}, {"name": "music"}], "variables": {}},
        },
    },
}

KINGSPORT_BOOK = {
    "name": "Kingsport harbour",
    "entries": {
        "0": {
            "uid": 0,
            "key": ["harbour office", "harbourmaster"],
            "keysecondary": [],
            "comment": "harbour office",
            "content": "The harbour office keeps the tide tables.",
            "constant": False,
            "selective": True,
            "order": 100,
            "disable": False,
        },
        "1": {
            "uid": 1,
            "key": ["old pier"],
            "keysecondary": ["storm"],
            "comment": "",
            "content": "The old pier has been closed since the storm.",
            "constant": False,
            "selective": True,
            "order": 50,
            "disable": False,
        },
        "2": {"uid": 2, "key": ["lighthouse"], "comment": "lighthouse", "content": "Dark.", "disable": True},
    },
}


def test_a_v2_card_picture_splits_into_its_character_its_lore_and_its_mvu_variables():
    split = split_card("cards/old-tom.png", picture(text_chunk(b"chara", OLD_TOM)))

    assert split.name == "Old Tom"
    assert split.kind == "world"  # its [InitVar] entry is machinery
    assert split.character == {
        "name": "Old Tom",
        "description": "A retired fisherman who mends nets by the harbour office.",
        "personality": "Gruff, patient.",
        "scenario": "Kingsport harbour, the week the lights went out.",
        "first_mes": "Tide's wrong tonight.",
        "creator_notes": "Part of the harbour-clues example.",
        "tags": "coc, harbour",
    }
    assert split.lore == [
        LoreBookEntry(
            title="The tide",
            keys=["tide", "tides"],
            secondary_keys=[],
            content="The tide has run wrong since the storm.",
            constant=True,
            selective=False,
            order=10,
            enabled=True,
        ),
        LoreBookEntry(
            title="lamp",
            keys=["lamp"],
            secondary_keys=["night", "dark"],
            content="The pier lamps light themselves some nights.",
            constant=False,
            selective=True,
            order=20,
            enabled=True,
        ),
    ]
    assert split.mvu == [
        ("世界.时间", "黄昏"),
        ("世界.地点", "Kingsport"),
        ("stats.hp", 12),
        ("stats.sanity", 60),
        ("stats.afraid", False),
        ("stats.luck", 0.5),
    ]
    assert split.hooks == []
    assert sorted(split.discarded) == sorted(["MVU update rules", "system prompt", "3 regex scripts"])
    assert split.openings == ["Evening.", "You again?"]  # the alternate greetings, for the brief
    assert read_card("cards/old-tom.png", picture(text_chunk(b"chara", OLD_TOM))) == {
        "name": "old-tom",
        "kind": "world",
    }


def test_a_picture_that_ends_after_its_card_chunk_still_reads():
    whole = picture(text_chunk(b"chara", character(description="An archivist.")))
    without_end = whole[: -len(chunk(b"IEND", b""))]
    assert split_card("cards/ada.png", without_end).character == {
        "name": "Ada",
        "description": "An archivist.",
    }


def test_a_v3_json_card_reads_its_yaml_init_variables_and_its_hook_scripts():
    split = split_card("cards/harbourmaster.json", as_json(HARBOURMASTER))

    assert split.kind == "world"
    assert split.character == {
        "name": "The harbourmaster",
        "description": "Keeps the ledger of every boat.",
        "first_mes": "Name and boat?",
    }
    assert [(entry.title, entry.keys, entry.order) for entry in split.lore] == [
        ("The ledger", ["ledger"], 100)
    ]
    assert split.mvu == [("角色.好感度", 0), ("角色.状态", "平静"), ("日期", "2024-05-01")]
    assert split.hooks == ["on_turn(lambda room: None)"]
    assert sorted(split.discarded) == sorted(
        ["1 MVU plot entry", "1 group-only greeting", "2 TavernHelper scripts"]
    )


def test_a_world_book_is_all_world_half_and_leaves_its_disabled_entries_out():
    split = split_card("cards/kingsport-harbour.json", as_json(KINGSPORT_BOOK))

    assert (split.name, split.kind, split.character, split.mvu, split.hooks) == (
        "Kingsport harbour",
        "world",
        {},
        [],
        [],
    )
    assert [
        (entry.title, entry.keys, entry.secondary_keys, entry.selective, entry.order) for entry in split.lore
    ] == [
        ("harbour office", ["harbour office", "harbourmaster"], [], False, 100),
        ("old pier", ["old pier"], ["storm"], True, 50),
    ]
    assert split.discarded == ["1 disabled lorebook entry"]


def test_a_card_without_machinery_is_a_character_even_when_it_is_only_a_name_and_lore():
    card = {
        "spec": "chara_card_v3",
        "data": {
            "name": "Kingsport",
            "tags": [],
            "character_book": {"entries": [{"keys": ["fog"], "content": "Fog rolls in at dusk."}]},
        },
    }
    assert split_card("cards/kingsport.json", as_json(card)).kind == "character"
    assert read_card("cards/kingsport.json", as_json(card)) == {"name": "kingsport", "kind": "character"}
    card["data"]["extensions"] = {"loreweaver_hooks": ['on("turn_start", () => {});']}
    assert read_card("cards/kingsport.json", as_json(card)) == {"name": "kingsport", "kind": "world"}


def test_a_template_block_or_a_secret_entry_makes_a_world_card_and_no_template_or_decorator_is_kept():
    templated = character(
        description="An archivist. <%= getvar('mood') %>",
        character_book={"entries": [{"keys": ["ink"], "content": "Ink <% if (x) { %>runs<% } %>."}]},
    )
    split = split_card("cards/ada.json", as_json(templated))
    assert split.kind == "world"
    assert split.character["description"] == "An archivist."
    assert split.lore[0].content == "Ink runs."
    assert split.discarded == ["3 template (EJS) blocks"]
    decorated = with_entries(
        {"keys": ["ink"], "content": "@@if mood == 'dark'\n@@depth 4\nInk runs."},
        {"keys": ["bar"], "comment": "status bar", "content": "@@render_status\n<div>{{hp}}</div>"},
    )
    split = split_card("cards/ada.json", as_json(decorated))
    assert [entry.content for entry in split.lore] == ["Ink runs."]
    assert sorted(split.discarded) == [
        "1 render entry",
        "condition of ink (@@if mood == 'dark')",
        "decorator @@depth of ink",
    ]
    secret = with_entries({"keys": ["ink"], "content": "The ink is blood.", "secret": True})
    assert split_card("cards/ada.json", as_json(secret)).kind == "world"


def test_text_loses_its_control_characters_and_is_cut_at_the_cap_saying_so():
    long = "x" * (MAX_FIELD_CHARS + 5000)
    card = character(description="An\x00 archivist\x1b.\r\n\tShe reads.\x7f", personality=long)
    card["data"]["character_book"] = {"entries": [{"keys": ["ink"], "content": long}]}

    split = split_card("cards/ada.json", as_json(card))

    assert split.character["description"] == "An archivist.\n\tShe reads."
    assert split.character["personality"] == "x" * MAX_FIELD_CHARS
    assert split.lore[0].content == "x" * MAX_FIELD_CHARS
    assert sorted(split.discarded) == [
        "1 lorebook entry cut at 20000 characters",
        "personality cut at 20000 characters",
    ]


def test_mvu_variables_past_the_cap_are_dropped_and_counted():
    tree = {"v": {f"n{number:03}": number for number in range(215)}, "deep": {"x" * 130: 1}}
    card = with_entries({"keys": [], "comment": "[InitVar]", "content": json.dumps(tree)})

    split = split_card("cards/ada.json", as_json(card))

    assert len(split.mvu) == 200
    assert split.mvu[:2] == [("v.n000", 0), ("v.n001", 1)]
    assert "16 MVU variables over the cap" in split.discarded
