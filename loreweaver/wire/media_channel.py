"""The media byte channel, shared by both carriers.

The carriers only frame: a WebSocket binary message is `uint32_be header length +
JSON header + body`; an Iroh media request is its own bi stream with one header line
and then the body. Both come here. A PUT's body is hashed and spooled piece by piece
(`media_store.services.Upload`), each piece written in a worker thread, so an Iroh
upload never sits in memory whole and never writes on the event loop; a GET streams
the stored blob back in 64 KiB pieces, each read in a worker thread. Only the room's
own media is served.
"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Protocol

from channels.db import database_sync_to_async

from base import metrics
from loreweaver.wire import hub
from media_store import services
from packs import services as pack_services

HEADER_LIMIT = 64 * 1024


class BadEnvelope(ValueError):
    """A binary message or stream header that does not follow the media framing."""


def split_ws_envelope(data: bytes) -> tuple[bytes, memoryview]:
    """Split a WebSocket media message (uint32_be header length, header, body)."""
    if len(data) < 4:
        raise BadEnvelope("shorter than its length prefix")
    (length,) = struct.unpack(">I", data[:4])
    if length == 0 or length > HEADER_LIMIT or 4 + length > len(data):
        raise BadEnvelope("header length out of range")
    view = memoryview(data)
    return bytes(view[4 : 4 + length]), view[4 + length :]


def ws_envelope(header: dict, body: bytes = b"") -> bytes:
    """A WebSocket media message."""
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return struct.pack(">I", len(raw)) + raw + body


def parse_header(raw: bytes) -> dict:
    """Decode one media header (a compact JSON object with an `op`)."""
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadEnvelope("header is not JSON") from None
    if not isinstance(header, dict) or header.get("op") not in ("put", "get"):
        raise BadEnvelope("header needs op put or get")
    for field in ("upload_id", "hash"):
        if field in header and not isinstance(header[field], str):
            raise BadEnvelope(f"{field} must be a string")
    return header


class MediaStream(Protocol):
    """An Iroh media stream as the channel sees it."""

    async def read(self) -> bytes: ...  # b"" at the end of the body
    async def write(self, data: bytes) -> None: ...
    async def finish(self) -> None: ...


def get_header(item: services.StoredFile) -> dict:
    """The header line (or message) that answers a `get` of `item`."""
    return {"op": "get", "hash": item.sha256, "size": item.size, "mime": item.mime, "name": item.name}


class Announced(Protocol):
    """A stored file as its announcement needs it (a `services.StoredFile`)."""

    id: int

    def as_frame(self) -> dict: ...


async def announce(room_id: int, item: Announced) -> None:
    """Tell the room about a stored file (a history entry, replayed at join)."""
    await hub.publish(room_id, item.as_frame(), row=("media", item.id))


async def pieces_of(item: services.StoredFile) -> AsyncIterator[bytes]:
    """The stored blob in 64 KiB pieces, each read off the event loop."""
    reader = services.read_pieces(item)
    try:
        while piece := await asyncio.to_thread(next, reader, b""):
            yield piece
    finally:
        reader.close()


@dataclass(frozen=True)
class _Found:
    """What a `get` serves: its header, and its bytes in pieces."""

    header: dict
    pieces: AsyncIterator[bytes]


async def _in_pieces(content: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(content), services.CHUNK):
        yield content[start : start + services.CHUNK]


class MediaRequests:
    """One connection's media requests, for the room it joined. A `get` serves the
    room's media, or a file of a pack enabled in the room when the viewer's own panels
    name it (`pack_hashes`), checked against its manifest digest first."""

    def __init__(
        self,
        uploader: services.Uploader,
        error_frame: Callable[[str], dict],
        pack_hashes: Callable[[], frozenset[str]] = frozenset,
    ) -> None:
        self.uploader = uploader
        self.error_frame = error_frame
        self.pack_hashes = pack_hashes

    async def _find(self, sha256: str) -> _Found:
        try:
            item = await database_sync_to_async(services.find_file)(self.uploader.room_id, sha256)
            return _Found(get_header(item), pieces_of(item))
        except services.MediaError:
            if sha256 not in self.pack_hashes():
                raise
        found = await database_sync_to_async(pack_services.room_asset)(self.uploader.room_id, sha256)
        if found is None:
            raise services.MediaError("media_not_found")
        pack_file, content = found
        header = {"op": "get", "hash": sha256, "size": pack_file.size, "mime": pack_file.mime}
        return _Found(header | {"name": pack_file.path.rsplit("/", 1)[-1]}, _in_pieces(content))

    async def _begin(self, header: dict) -> services.Upload:
        return await asyncio.to_thread(services.Upload, self.uploader, header.get("upload_id") or "")

    async def _finish(self, upload: services.Upload) -> services.StoredFile:
        item = await database_sync_to_async(services.finish_file)(upload)
        metrics.MEDIA_BYTES.labels("stored").inc(item.size)
        await announce(self.uploader.room_id, item)
        return item

    async def put_whole(self, header: dict, body: memoryview) -> None:
        """A WebSocket PUT: the body arrived in one message. Raises `MediaError`."""
        upload = await self._begin(header)
        try:
            await asyncio.to_thread(upload.write, body)
        except BaseException:
            upload.discard()
            raise
        await self._finish(upload)

    async def get_whole(self, header: dict) -> bytes:
        """A WebSocket GET: the reply message (header and body). Raises `MediaError`."""
        found = await self._find(header.get("hash") or "")
        # One growing buffer, then the one copy the WebSocket layer needs as bytes.
        message = bytearray(ws_envelope(found.header))
        async for piece in found.pieces:
            message += piece
        metrics.MEDIA_BYTES.labels("served").inc(len(message))
        return bytes(message)

    async def serve_stream(self, header: dict, stream: MediaStream) -> None:
        """An Iroh request on its own stream; the stream is finished afterwards."""
        try:
            if header["op"] == "put":
                upload = await self._begin(header)
                try:
                    while piece := await stream.read():
                        # Spooled off the event loop, as a WebSocket body is: a slow
                        # disk must not stall every connection of the process.
                        await asyncio.to_thread(upload.write, piece)
                except BaseException:
                    upload.discard()
                    raise
                item = await self._finish(upload)
                await stream.write(line({"op": "put_ok", "hash": item.sha256}))
            else:
                found = await self._find(header.get("hash") or "")
                await stream.write(line(found.header))
                async for piece in found.pieces:
                    await stream.write(piece)
                    metrics.MEDIA_BYTES.labels("served").inc(len(piece))
        except services.MediaError as refused:
            await stream.write(line(self.error_frame(refused.code)))
        await stream.finish()


def line(frame: dict) -> bytes:
    """One compact JSON line of an Iroh media stream."""
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
