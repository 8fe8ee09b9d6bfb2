"""A Loreweaver lorecard (`format: loreweaver.card`, version 1) splits whole
(docs/packs.md, "Card import"): its typed variables keep their ids, kinds, bounds and
labels, its secret entries stay keeper-only, its hooks and its opening come along, and
what this server cannot keep is named, never "nothing"; a lorecard it cannot read is
refused, naming the card and the field."""

from __future__ import annotations

import pytest

from packs.cards import CardError, split_card
from packs.tests.card_files import as_json

NIGHT = {
    "id": "night",
    "kind": "number",
    "visibility": "keeper",
    "labels": {"en": "Night", "zh": "夜", "ja": "夜"},
    "default": 1,
    "minimum": 0,
    "maximum": 3,
}
HOOK = 'on("reply_ready", () => emitUI([{kind: "text", text: "The fifth floor is there."}]));'


def lorecard(**fields: object) -> dict:
    return {
        "format": "loreweaver.card",
        "format_version": 1,
        "name": "The Cloister",
        "description": "A block of flats with a fifth floor on rainy nights.",
        "opening": "Rain on the door plates; the numbers flicker.",
        "alternate_openings": ["You wake on the fifth-floor stairs."],
        **fields,
    }


def test_typed_variables_secret_entries_hooks_and_the_opening_all_land():
    card = lorecard(
        variables=[
            NIGHT,
            {"id": "Door Colour", "kind": "enum", "options": ["red", "grey"], "default": "grey"},
        ],
        worldbook=[
            {"title": "The rule", "content": "Floor five comes with the rain.", "keys": ["floor five"]},
            {"title": "The caretaker", "content": "He is not human.", "keys": ["caretaker"], "secret": True},
            {
                "title": "Roster",
                "content": "A wet line on the last page.",
                "keys": ["roster"],
                "condition": "night >= 2",
                "probability": 50,
                "sticky": 2,
            },
        ],
        hooks=[HOOK, {"code": "// a second script"}],
        pregens=[{"name": "Mei"}],
        soundtrack="rain.ogg",
    )
    split = split_card("cards/cloister.lorecard.json", as_json(card))

    assert split.kind == "world"
    assert split.variables == [
        {
            "id": "night",
            "kind": "number",
            "label": {"en": "Night", "zh": "夜"},
            "value": 1,
            "min": 0,
            "max": 3,
            "audience": "keepers",
        },
        {
            "id": "door_colour",
            "kind": "enum",
            "value": "grey",
            "choices": ["red", "grey"],
            "audience": "everyone",
        },
    ]
    assert split.mvu == []  # typed variables are never MVU leaves
    assert [(entry.title, entry.secret) for entry in split.lore] == [
        ("The rule", False),
        ("The caretaker", True),
        ("Roster", False),
    ]
    assert split.shared_lore  # the author marked the keeper-only ones
    assert split.hooks == [HOOK, "// a second script"]
    assert split.character["first_mes"] == "Rain on the door plates; the numbers flicker."
    assert split.openings == ["You wake on the fifth-floor stairs."]
    assert sorted(split.discarded) == sorted(
        [
            "labels of night in ja",
            "condition of Roster (@@if night >= 2)",
            "probability 50 of Roster",
            "sticky 2 of Roster",
            "pregens cast (1)",
            "field soundtrack",
        ]
    )


def test_a_secret_entry_alone_makes_a_world_card_and_a_plain_lorecard_is_a_character():
    secret = lorecard(worldbook=[{"title": "Truth", "content": "It is a tomb.", "secret": True}])
    assert split_card("c.lorecard.json", as_json(secret)).kind == "world"
    plain = lorecard(personality="Curious.", worldbook=[{"title": "Rain", "content": "It rains."}])
    split = split_card("c.lorecard.json", as_json(plain))
    assert (split.kind, split.persona, split.discarded) == ("character", True, [])


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"format_version": 2}, "format version 2; this server reads version 1"),
        ({"format_version": "1"}, "format version '1'"),
        ({"name": ""}, "has no name"),
        ({"worldbook": {"title": "x"}}, "worldbook is not a list"),
        ({"worldbook": ["just text"]}, r"worldbook\[0\] is not an object"),
        ({"variables": [{"id": "night", "kind": "clock"}]}, r"variables\[0\]: The kind of night"),
        (
            {"variables": [{"id": "n", "kind": "number", "minimum": 5, "maximum": 1}]},
            r"variables\[0\]: The bounds of n",
        ),
        ({"variables": [{"id": "n", "default": 1}]}, r"variables\[0\]: The kind of n"),
        ({"variables": [NIGHT, NIGHT]}, r"variables\[1\] declares night a second time"),
        ({"hooks": [1]}, "hooks is not a list of texts"),
    ],
)
def test_a_lorecard_this_server_cannot_read_is_refused_naming_it(fields, problem):
    with pytest.raises(CardError, match=problem) as refused:
        split_card("cards/cloister.lorecard.json", as_json(lorecard(**fields)))
    assert "cards/cloister.lorecard.json" in str(refused.value)
