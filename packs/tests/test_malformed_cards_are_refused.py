"""A malformed or hostile card file is refused with a `CardError` naming the file and
the problem, by the split and by the listing alike — never a parser's own exception
(packs/cards.py)."""

from __future__ import annotations

import base64
import zlib

import pytest

from packs.card_bytes import MAX_CARD_BYTES, MAX_CHUNK_BYTES
from packs.cards import CardError, read_card, split_card
from packs.tests.card_files import as_json, character, chunk, encoded, picture, text_chunk, with_entries

PATH = "cards/hostile.png"
IEND = chunk(b"IEND", b"")


def _truncated() -> bytes:
    whole = picture(text_chunk(b"chara", character(description="An archivist.")))
    return whole[: len(whole) // 2]


def _init_variables(content: str) -> bytes:
    return as_json(with_entries({"keys": [], "comment": "[InitVar]", "content": content}))


CORPUS = {
    "a file over the size cap": (b" " * (MAX_CARD_BYTES + 1), "larger than 16777216 bytes"),
    "a truncated picture": (_truncated(), "is truncated"),
    "a picture ending inside a chunk header": (picture()[: -len(IEND)] + b"\0\0\0", "is truncated"),
    "an oversized text chunk": (
        picture(chunk(b"tEXt", b"chara\0" + b"A" * MAX_CHUNK_BYTES)),
        "oversized text chunk",
    ),
    "a zTXt bomb": (
        picture(chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"A" * (MAX_CHUNK_BYTES + 1024), 9))),
        "inflates past 8388608 bytes",
    ),
    "a zTXt that is not zlib": (picture(chunk(b"zTXt", b"chara\0\0not zlib")), "unreadable chara chunk"),
    "bad base64": (picture(chunk(b"tEXt", b"ccv3\0e30")), "unreadable ccv3 chunk"),
    "base64 of no JSON": (
        picture(chunk(b"tEXt", b"chara\0" + base64.b64encode(b"{name: Ada"))),
        "unreadable chara chunk",
    ),
    "base64 of no UTF-8": (
        picture(chunk(b"tEXt", b"chara\0" + base64.b64encode(b'{"name": "\xff"}'))),
        "unreadable chara chunk",
    ),
    "a picture with no card": (picture(chunk(b"tEXt", b"Comment\0" + encoded({"name": "Ada"}))), "holds no"),
    "100,000 opening brackets": (b"[" * 100_000, "nests deeper than 64 levels"),
    "deep nesting inside a picture's card": (
        picture(chunk(b"tEXt", b"chara\0" + base64.b64encode(b'{"data": ' + b"[" * 65 + b"]" * 65 + b"}"))),
        "nests deeper than 64 levels",
    ),
    "too many JSON values": (b"[" + b"0," * 500_000 + b"0]", "more than 500000 JSON values"),
    "an integer too long to read": (b'{"name": ' + b"9" * 5000 + b"}", "neither a card picture nor JSON"),
    "non-UTF-8 JSON": (b'{"name": "Ad\xe9"}', "is not UTF-8 text"),
    "data is a list": (as_json({"spec": "chara_card_v2", "data": ["Ada"]}), "data is not an object"),
    "the name is a number": (as_json(character(name=7)), "data.name is not text"),
    "the description is a list": (
        as_json(character(description=["An", "archivist"])),
        "data.description is not",
    ),
    "the tags are text": (as_json(character(tags="coc, harbour")), "data.tags is not a list of texts"),
    "the lorebook is a number": (
        as_json(character(character_book=3)),
        "data.character_book is not an object",
    ),
    "the entries are text": (
        as_json(character(character_book={"entries": "pier"})),
        "data.character_book.entries is neither a list nor an object",
    ),
    "an entry is text": (as_json(with_entries("pier")), r"data.character_book.entries\[0\] is not an object"),
    "the keys are no list of texts": (
        as_json(with_entries({"keys": ["pier", 3], "content": "The pier."})),
        r"entries\[0\].keys is not a list of texts",
    ),
    "a world book's key is text": (
        as_json({"entries": {"7": {"key": "pier", "content": "The pier."}}}),
        "entries.7.key is not a list of texts",
    ),
    "the content is an object": (
        as_json(with_entries({"keys": ["pier"], "content": {"text": "The pier."}})),
        r"entries\[0\].content is not text",
    ),
    "constant is text": (
        as_json(with_entries({"keys": ["pier"], "content": "The pier.", "constant": "yes"})),
        "constant is not true or false",
    ),
    "the order is text": (
        as_json(with_entries({"keys": ["pier"], "content": "The pier.", "insertion_order": "first"})),
        "insertion_order is not a number",
    ),
    "the extensions are a list": (as_json(character(extensions=[])), "data.extensions is not an object"),
    "the hooks are text": (
        as_json(character(extensions={"loreweaver_hooks": "run()"})),
        "loreweaver_hooks is not a list of texts",
    ),
    "no name": (
        as_json({"spec": "chara_card_v2", "data": {"description": "no name"}}),
        "not a character card",
    ),
    "a blank name": (as_json(character(name=" \x00 ")), "not a character card"),
    "a lorebook over the cap": (
        as_json(with_entries(*({"keys": [f"k{n}"], "content": "c"} for n in range(501)))),
        "more than 500 lorebook entries",
    ),
    "too many hook scripts": (
        as_json(character(extensions={"loreweaver_hooks": ["run()"] * 17})),
        "more than 16 hook scripts",
    ),
    "a hook script too long": (
        as_json(character(extensions={"loreweaver_hooks": ["#" * 40_001]})),
        "hook script longer than 40000 characters",
    ),
    "init variables that are no YAML": (_init_variables("a: [1, 2\nb: }"), r"\[InitVar\] is not valid YAML"),
    "init variables with YAML aliases": (
        _init_variables("a: &x [1, 2]\nb: *x"),
        r"\[InitVar\] uses YAML anchors or aliases",
    ),
    "init variables nested in YAML flow": (
        _init_variables("a: " + "[" * 10_000),
        "nests deeper than 64 levels",
    ),
    "init variables nested in YAML blocks": (
        _init_variables("".join(" " * depth + f"k{depth}:\n" for depth in range(70)) + " " * 70 + "v: 1"),
        "nests deeper than 64 levels",
    ),
    "init variables with an impossible date": (
        _init_variables("day: 2024-13-45"),
        r"\[InitVar\] is not valid",
    ),
    "init variables that are a list": (_init_variables("[1, 2, 3]"), "holds no tree of variables"),
    "init variables too large": (_init_variables("a: " + "x" * 300_000), r"\[InitVar\] is larger than"),
}


@pytest.mark.parametrize("case", list(CORPUS))
def test_a_malformed_card_is_refused_naming_the_file_and_the_problem(case):
    data, problem = CORPUS[case]
    for read in (split_card, read_card):
        with pytest.raises(CardError, match=problem) as refused:
            read(PATH, data)
        assert PATH in str(refused.value)
