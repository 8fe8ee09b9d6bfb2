"""Card files for the card tests, built byte by byte: PNG pictures with real chunks and
CRCs (a card in a `tEXt` or `zTXt` chunk), and JSON cards and world books."""

from __future__ import annotations

import base64
import json
import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind: bytes, body: bytes) -> bytes:
    """One PNG chunk: length, type, body, CRC of type and body."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def encoded(card: object) -> bytes:
    """A card as a card chunk carries it: its JSON, base64-encoded."""
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode())


def text_chunk(keyword: bytes, card: object) -> bytes:
    """A `tEXt` chunk holding `card` under `keyword` (`chara` or `ccv3`)."""
    return chunk(b"tEXt", keyword + b"\0" + encoded(card))


def picture(*chunks: bytes) -> bytes:
    """A 1x1 PNG with `chunks` between its header and its end."""
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    return SIGNATURE + header + b"".join(chunks) + chunk(b"IEND", b"")


def as_json(card: object) -> bytes:
    return json.dumps(card, ensure_ascii=False).encode()


def character(**fields: object) -> dict:
    """A V2 character card named Ada, with `fields` added to (or replacing) its data."""
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Ada", **fields}}


def with_entries(*entries: object) -> dict:
    """A V2 character card whose lorebook holds `entries`."""
    return character(description="An archivist.", character_book={"entries": list(entries)})
