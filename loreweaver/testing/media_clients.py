"""Media helpers for the tests: offer, PUT and GET over either carrier, as a
loreweaver client does it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import struct

from loreweaver.testing.clients import Client, IrohClient

CHUNK = 64 * 1024


def envelope(header: dict, body: bytes = b"") -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack(">I", len(raw)) + raw + body


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def offer(client: Client, data: bytes, mime: str, name: str = "file", **overrides) -> dict:
    """Send a media_offer and return the answer (media_accept or error)."""
    frame = {"type": "media_offer", "name": name, "mime": mime, "size": len(data), "sha256": sha(data)}
    await client.send({**frame, **overrides})
    while True:
        answer = await client.recv(20)
        if answer["type"] in ("media_accept", "error"):
            return answer


async def put(client: Client, upload_id: str, data: bytes) -> dict | None:
    """PUT the body. Over Iroh returns the stream's reply line; over WebSocket None
    (success shows as the room's broadcast, a refusal as an error frame)."""
    if isinstance(client, IrohClient):
        stream = await client.connection.open_bi()
        send = stream.send()
        await send.write_all(json.dumps({"op": "put", "upload_id": upload_id}).encode() + b"\n")
        for start in range(0, len(data), CHUNK):
            await send.write_all(data[start : start + CHUNK])
        await send.finish()
        reply = await asyncio.wait_for(stream.recv().read_to_end(1 << 16), 60)
        return json.loads(reply.split(b"\n", 1)[0])
    await client.send(envelope({"op": "put", "upload_id": upload_id}, data))
    return None


async def get(client: Client, digest: str) -> tuple[dict, bytes]:
    """GET a hash: (reply header or error frame, body)."""
    if isinstance(client, IrohClient):
        stream = await client.connection.open_bi()
        await stream.send().write_all(json.dumps({"op": "get", "hash": digest}).encode() + b"\n")
        await stream.send().finish()
        recv = stream.recv()
        buffer = bytearray()
        while b"\n" not in buffer:
            piece = await asyncio.wait_for(recv.read(CHUNK), 60)
            if not piece:
                break
            buffer += piece
        line, _, body = bytes(buffer).partition(b"\n")
        header = json.loads(line)
        rest = bytearray(body)
        while piece := await asyncio.wait_for(recv.read(CHUNK), 60):
            rest += piece
        return header, bytes(rest)
    await client.send(envelope({"op": "get", "hash": digest}))
    while True:
        message = await client.recv(60)
        if message["type"] == "__binary__":
            data = message["data"]
            (length,) = struct.unpack(">I", data[:4])
            return json.loads(data[4 : 4 + length]), data[4 + length :]
        if message["type"] == "error":
            return message, b""


async def upload(client: Client, data: bytes, mime: str, name: str = "file") -> dict:
    """Offer and PUT; return the room's `media`/`audio_library_item` frame for it."""
    accepted = await offer(client, data, mime, name)
    assert accepted["type"] == "media_accept", accepted
    reply = await put(client, accepted["upload_id"], data)
    if reply is not None:
        assert reply == {"op": "put_ok", "hash": sha(data)}, reply
    while True:
        frame = await client.recv(60)
        if frame["type"] in ("media", "audio_library_item") and frame["hash"] == sha(data):
            return frame
        assert frame["type"] != "error", frame
