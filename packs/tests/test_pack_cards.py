"""Card files in packs: read at build and install (character cards as JSON or in a
PNG's text chunk, world books as JSON), listed by `list_pack_cards` with their kind
and never their content (docs/packs.md)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from loreweaver.testing.clients import connect, settle
from packs.cards import CardError, read_card

CHARACTER = {"spec": "chara_card_v2", "data": {"name": "Ada", "description": "An archivist."}}


def _png_with(chunks: dict[bytes, dict]) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    text = b"".join(
        chunk(b"tEXt", keyword + b"\0" + base64.b64encode(json.dumps(card).encode()))
        for keyword, card in chunks.items()
    )
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + text + chunk(b"IEND", b"")


def test_a_character_card_in_json_or_in_a_picture_is_a_character():
    assert read_card("cards/ada.json", json.dumps(CHARACTER).encode()) == {"name": "ada", "kind": "character"}
    assert read_card("cards/ada.png", _png_with({b"chara": CHARACTER}))["kind"] == "character"


def test_the_v3_chunk_of_a_picture_wins_over_its_v2_copy():
    v3 = {"spec": "chara_card_v3", "data": {"name": "Ada v3"}}
    assert read_card("ada.png", _png_with({b"chara": {"nonsense": 1}, b"ccv3": v3}))["kind"] == "character"


def test_a_world_book_is_a_world():
    book = {"entries": {"0": {"key": ["pier"], "content": "The pier."}}}
    assert read_card("cards/harbour.json", json.dumps(book).encode()) == {"name": "harbour", "kind": "world"}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 20, "holds no character card"),
        (b"not json at all", "neither a card picture nor JSON"),
        (b"[1, 2, 3]", "not a character card"),
        (
            json.dumps({"spec": "chara_card_v2", "data": {"description": "no name"}}).encode(),
            "not a character",
        ),
    ],
)
def test_a_file_that_is_no_card_is_refused(data, problem):
    with pytest.raises(CardError, match=problem):
        read_card("cards/x.png", data)


async def test_anyone_lists_the_installed_packs_cards_by_name_and_kind(panel_server, room):
    async with await connect("ws", panel_server) as pip:
        await pip.join(panel_server.env.mint(room, "Pip"))
        await settle(pip)
        await pip.send({"type": "list_pack_cards"})
        listed = await pip.expect("pack_cards")
    assert sorted(listed["cards"], key=lambda card: card["name"]) == [
        {
            "ref": "harbour-clues/cards/kingsport-harbour.json",
            "pack": "harbour-clues",
            "name": "kingsport-harbour",
            "kind": "world",
        },
        {
            "ref": "harbour-clues/cards/old-tom.json",
            "pack": "harbour-clues",
            "name": "old-tom",
            "kind": "character",
        },
    ]
    assert "fisherman" not in json.dumps(listed)  # names only, never the card's content
