"""Files round-trip over both carriers: the
room is told, another member fetches the same bytes, a second offer of the same bytes
is answered `existing:true`, and a member joining later sees the media history."""

from __future__ import annotations

import os

import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import get, offer, sha, upload

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(3000)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="4" height="4"/></svg>'
MP3 = b"ID3\x04\x00\x00\x00\x00\x00\x00" + os.urandom(200_000)
FILES = [
    ("map.png", "image/png", PNG, "media"),
    ("plan.svg", "image/svg+xml", SVG, "media"),
    ("theme.mp3", "audio/mpeg", MP3, "audio_library_item"),
]


@pytest.mark.parametrize(("name", "mime", "data", "kind"), FILES, ids=[f[0] for f in FILES])
async def test_a_file_round_trips_and_the_room_is_told(media_server, room, carrier, name, mime, data, kind):
    env = media_server.env
    async with (
        await connect(carrier, media_server) as sender,
        await connect("iroh" if carrier == "ws" else "ws", media_server) as other,
    ):
        await sender.join(env.mint(room, "Sender"))
        await other.join(env.mint(room, "Other"))
        stored = await upload(sender, data, mime, name)
        assert stored["type"] == kind and stored["hash"] == sha(data) and stored["size"] == len(data)
        assert stored["name"] == name and stored["from"] == "Sender" and stored["mime"] == mime
        seen = await other.expect(kind, timeout=20)
        assert seen == stored
        header, body = await get(other, sha(data))
        assert header == {"op": "get", "hash": sha(data), "size": len(data), "mime": mime, "name": name}
        assert body == data and sha(body) == sha(data)

        again = await offer(other, data, mime, "copy")
        assert again["upload_id"] == "" and again["existing"] is True
        assert again["audio" if kind == "audio_library_item" else "media"] == stored
        assert await sender.expect(kind, timeout=20) == stored, "the room sees it again"

    async with await connect(carrier, media_server) as late:
        frames = await late.join(env.mint(room, "Late"))
    history = [f for f in frames if f["type"] == kind]
    assert history == [stored], "one history entry, replayed at join"
    assert not [f for f in frames if f["type"] == "media_enabled"], "uploads are on: no media_enabled"
