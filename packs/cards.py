"""Card files a pack ships (`contents.cards`): SillyTavern character cards (JSON V2/V3,
or a PNG with the card in its `chara` or `ccv3` text chunk) and world books (JSON
with `entries`). A pack's build and install read each one; `list_pack_cards` offers
them by reference, with the kind that decides how they import (`character`: as a
player's character, `world`: the keeper's world half).

The kind is read from the file's form: a world book is `world`, a character card
`character`. Telling the world half inside a character card apart (拆卡) belongs to
the card import.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
import zlib
from pathlib import PurePosixPath
from typing import Any

from loreweaver.i18n import Refusal, _

MAX_CARD_BYTES = 16 * 1024 * 1024
_PNG = b"\x89PNG\r\n\x1a\n"
_CARD_CHUNKS = (b"ccv3", b"chara")


class CardError(Refusal):
    """A card file that cannot be read."""


def _png_card(data: bytes, path: str) -> Any:
    position, found = len(_PNG), {}
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"tEXt":
            keyword, _sep, text = body.partition(b"\0")
        elif kind == b"zTXt":
            keyword, _sep, rest = body.partition(b"\0")
            try:
                text = zlib.decompressobj().decompress(rest[1:], MAX_CARD_BYTES)
            except zlib.error:
                continue
        else:
            continue
        if keyword.lower() in _CARD_CHUNKS:
            found[keyword.lower()] = text
    for keyword in _CARD_CHUNKS:  # a V3 card also keeps its V2 copy: the V3 one wins
        if keyword in found:
            try:
                return json.loads(base64.b64decode(found[keyword], validate=False))
            except (binascii.Error, ValueError):
                raise CardError(
                    _("The card {path} has an unreadable {chunk} chunk."), path=path, chunk=keyword.decode()
                )
    raise CardError(_("The picture {path} holds no character card."), path=path)


def read_card(path: str, data: bytes) -> dict:
    """`{name, kind}` of the card file `path`, or refused naming the problem."""
    if len(data) > MAX_CARD_BYTES:
        raise CardError(_("The card {path} is larger than {limit} bytes."), path=path, limit=MAX_CARD_BYTES)
    if data.startswith(_PNG):
        card = _png_card(data, path)
    else:
        try:
            card = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise CardError(_("The card {path} is neither a card picture nor JSON."), path=path) from None
    if not isinstance(card, dict):
        raise CardError(_("The card {path} is not a character card or a world book."), path=path)
    stem = PurePosixPath(path).stem
    if "entries" in card and "data" not in card and "spec" not in card:
        return {"name": stem, "kind": "world"}
    fields = card.get("data") if isinstance(card.get("data"), dict) else card
    if not isinstance(fields.get("name"), str):
        raise CardError(_("The card {path} is not a character card or a world book."), path=path)
    return {"name": stem, "kind": "character"}
