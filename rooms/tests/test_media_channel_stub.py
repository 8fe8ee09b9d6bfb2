"""Until the media issue lands, the byte channel exists on both carriers and answers
`media_not_found` (checklist 7, 9, 218-226)."""

from __future__ import annotations

import json
import struct

from rooms.tests.clients import IrohClient, WsClient


def _envelope(header: dict, body: bytes = b"") -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack(">I", len(raw)) + raw + body


async def test_a_websocket_get_or_put_gets_media_not_found(server, room):
    key = server.env.mint(room, "Media")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        await client.send(_envelope({"op": "get", "hash": "a" * 64}))
        assert (await client.expect("error"))["code"] == "media_not_found"
        await client.send(_envelope({"op": "put", "upload_id": "u1"}, b"\x89PNG"))
        assert (await client.expect("error"))["code"] == "media_not_found"
        await client.send(_envelope({"op": "delete"}))
        assert (await client.expect("error"))["code"] == "bad_frame"


async def test_an_iroh_media_stream_gets_media_not_found_and_the_control_stream_goes_on(server, room):
    key = server.env.mint(room, "Streams")
    async with await IrohClient.connect(server.ticket) as client:
        await client.join(key)
        reply = await client.media_request({"op": "get", "hash": "b" * 64})
        assert reply["type"] == "error" and reply["code"] == "media_not_found"
        bad = await client.media_request({"op": "nonsense"})
        assert bad["code"] == "bad_frame"
        await client.send({"type": "ping", "t": 5})
        assert (await client.expect("pong"))["t"] == 5
