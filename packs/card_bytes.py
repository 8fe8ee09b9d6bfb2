"""Reading a card file's bytes without trusting them: the card chunk of a PNG (a
truncated file, an oversized chunk or a zTXt that inflates too far is refused), JSON
and YAML checked for nesting before they are parsed (both parsers recurse per level),
and the size caps, each a `CardError` naming the file and the problem
(`packs/cards.py` splits what is read)."""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import zlib
from typing import Any

import yaml

from base.i18n import Refusal, _

MAX_CARD_BYTES = 16 * 1024 * 1024
MAX_CHUNK_BYTES = 8 * 1024 * 1024  # one PNG text chunk, and what a zTXt inflates to
MAX_DEPTH = 64
MAX_JSON_VALUES = 500_000  # past this, json.loads alone takes hundreds of megabytes

_PNG = b"\x89PNG\r\n\x1a\n"
_CARD_CHUNKS = (b"ccv3", b"chara")
_TEXT_CHUNKS = (b"tEXt", b"zTXt")
_JSON_MARK = re.compile(r'[\[\]{},"]')
_JSON_STRING_REST = re.compile(r'(?:[^"\\]++|\\.)*+"', re.DOTALL)  # possessive: no backtracking
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CardError(Refusal):
    """A card file that cannot be read."""


def load(path: str, data: bytes) -> Any:
    """The JSON document of the card file `path` (a PNG's card chunk, or the file), or
    refused naming the problem."""
    if len(data) > MAX_CARD_BYTES:
        raise CardError(_("The card {path} is larger than {limit} bytes."), path=path, limit=MAX_CARD_BYTES)
    if data.startswith(_PNG):
        chunk, payload = _png_card(data, path)
        try:
            text = payload.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CardError(_("The card {path} has an unreadable {chunk} chunk."), path=path, chunk=chunk)
    else:
        chunk = None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CardError(_("{name} is not UTF-8 text."), name=path) from None
    check_json(text, path)
    try:
        # NaN and Infinity are not JSON: read as absent rather than carried along.
        return json.loads(text, parse_constant=lambda _constant: None)
    except ValueError:  # also an integer too long to read
        if chunk:
            raise CardError(_("The card {path} has an unreadable {chunk} chunk."), path=path, chunk=chunk)
        raise CardError(_("The card {path} is neither a card picture nor JSON."), path=path) from None


def _png_card(data: bytes, path: str) -> tuple[str, bytes]:
    """The card chunk's keyword and its decoded JSON bytes."""
    position, found = len(_PNG), {}
    while position < len(data):
        if position + 8 > len(data):
            raise CardError(_("The picture {path} is truncated: a chunk runs past its end."), path=path)
        length, kind = struct.unpack_from(">I4s", data, position)
        if kind in _TEXT_CHUNKS and length > MAX_CHUNK_BYTES:
            raise CardError(
                _("The picture {path} has an oversized text chunk, over {limit} bytes."),
                path=path,
                limit=MAX_CHUNK_BYTES,
            )
        end = position + 8 + length
        if end > len(data):
            raise CardError(_("The picture {path} is truncated: a chunk runs past its end."), path=path)
        if kind == b"IEND":
            break
        if kind in _TEXT_CHUNKS:
            keyword, separator, rest = data[position + 8 : end].partition(b"\0")
            keyword = keyword.lower()
            # SillyTavern reads the first chunk of each keyword; inflating only that one
            # keeps a picture of many small zTXt bombs from costing more than one.
            if separator and keyword in _CARD_CHUNKS and keyword not in found:
                found[keyword] = (kind, rest)
        position = end + 4  # the CRC, which a missing last one does no harm to skip
    for keyword in _CARD_CHUNKS:  # a V3 card also keeps its V2 copy: the V3 one wins
        if keyword in found:
            kind, text = found[keyword]
            name = keyword.decode()
            if kind == b"zTXt":
                text = _inflate(text, path, name)
            try:
                return name, base64.b64decode(text, validate=False)
            except binascii.Error:
                raise CardError(_("The card {path} has an unreadable {chunk} chunk."), path=path, chunk=name)
    raise CardError(_("The picture {path} holds no character card."), path=path)


def _inflate(body: bytes, path: str, chunk: str) -> bytes:
    """A zTXt's text: its compression method byte (0, zlib), then the stream."""
    inflater = zlib.decompressobj()
    try:
        text = inflater.decompress(body[1:], MAX_CHUNK_BYTES) if body[:1] == b"\0" else None
    except zlib.error:
        text = None
    if text is None:
        raise CardError(_("The card {path} has an unreadable {chunk} chunk."), path=path, chunk=chunk)
    if inflater.unconsumed_tail or (len(text) >= MAX_CHUNK_BYTES and not inflater.eof):
        raise CardError(
            _("The card {path} has a compressed {chunk} chunk that inflates past {limit} bytes."),
            path=path,
            chunk=chunk,
            limit=MAX_CHUNK_BYTES,
        )
    return text


def check_json(text: str, path: str) -> None:
    """Refuses JSON nested deeper than MAX_DEPTH (json.loads recurses per level, and
    100,000 brackets overflow it) or holding more than MAX_JSON_VALUES values."""
    depth = values = position = 0
    while mark := _JSON_MARK.search(text, position):
        char, position = mark.group(), mark.end()
        if char == '"':
            rest = _JSON_STRING_REST.match(text, position)
            if rest is None:
                return  # a string never closed: json.loads refuses the whole text
            position = rest.end()
            continue
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise CardError(
                    _("The card {path} nests deeper than {limit} levels."), path=path, limit=MAX_DEPTH
                )
        elif char in "]}":
            depth -= 1
        if char in "[{,":
            values += 1
            if values > MAX_JSON_VALUES:
                raise CardError(
                    _("The card {path} holds more than {limit} JSON values."),
                    path=path,
                    limit=MAX_JSON_VALUES,
                )


def check_yaml_depth(text: str, path: str) -> None:
    """Refuses YAML nested deeper than MAX_DEPTH before it is composed: libyaml's
    composer recurses per level in C, where too deep a document crashes the process."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_YAML_LOADER):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise CardError(
                        _("The card {path} nests deeper than {limit} levels."), path=path, limit=MAX_DEPTH
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # safe_yaml.load says what is wrong with it
