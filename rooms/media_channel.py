"""The media byte channel's entry point, shared by both carriers.

Until the media issue lands no blob exists, so every request that names a valid
operation is answered `media_not_found`; a malformed header is `bad_frame`. The
carriers only parse their framing (WebSocket envelope, Iroh header line) and write
back what this returns.
"""

from __future__ import annotations

import json
import struct

HEADER_LIMIT = 64 * 1024


class BadEnvelope(ValueError):
    """A binary message or stream header that does not follow the media framing."""


def split_ws_envelope(data: bytes) -> tuple[bytes, bytes]:
    """Split a WebSocket media message (uint32_be header length, header, body)."""
    if len(data) < 4:
        raise BadEnvelope("shorter than its length prefix")
    (length,) = struct.unpack(">I", data[:4])
    if length == 0 or length > HEADER_LIMIT or 4 + length > len(data):
        raise BadEnvelope("header length out of range")
    return data[4 : 4 + length], data[4 + length :]


def parse_header(raw: bytes) -> dict:
    """Decode one media header (a compact JSON object with an `op`)."""
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadEnvelope("header is not JSON") from None
    if not isinstance(header, dict) or header.get("op") not in ("put", "get"):
        raise BadEnvelope("header needs op put or get")
    return header


def answer(header: dict) -> str:
    """The error code a request gets while the byte channel has no blobs."""
    return "media_not_found"
