"""Every media error code, produced over the wire on both carriers (docs/decisions.md,
"Media" and "Errors"): offer checks in their order, PUT checks, upload ids bound to
their uploader, GET confined to the room, and the keeper's switch."""

from __future__ import annotations

import os

from loreweaver.testing.clients import IrohClient, connect
from loreweaver.testing.media_clients import envelope, get, offer, put, sha, upload

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(600)


def _png(size: int = 600) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + os.urandom(size - 8)


async def _refused(client, upload_id: str, data: bytes) -> str:
    """PUT and return the error code (Iroh: the stream's line; WebSocket: an error frame)."""
    reply = await put(client, upload_id, data)
    if reply is None:
        reply = await client.expect("error", timeout=20)
    assert reply["type"] == "error" and reply["message"], reply
    return reply["code"]


async def test_offers_are_checked_in_order(media_server, room, carrier):
    async with await connect(carrier, media_server) as client:
        await client.join(media_server.env.mint(room, "Ann"))
        assert (await offer(client, PNG, "text/html"))["code"] == "media_bad_mime"
        assert (await offer(client, PNG, "image/png", size=0))["code"] == "media_too_large"
        assert (await offer(client, PNG, "image/png", size=9 * 1024 * 1024))["code"] == "media_too_large"
        assert (await offer(client, PNG, "image/png", sha256="XYZ"))["code"] == "media_bad_hash"
        assert (await offer(client, PNG, "text/html", sha256="XYZ"))["code"] == "media_bad_mime", "mime first"
        await client.send({"type": "media_offer", "name": "x", "mime": "image/png"})
        assert (await client.expect("error"))["code"] == "media_bad_offer"
        await client.send({"type": "ping", "t": 1})
        assert (await client.expect("pong"))["t"] == 1, "a media error leaves the connection open"


async def test_put_checks_the_bytes_against_the_offer(media_server, room, carrier):
    async with await connect(carrier, media_server) as client:
        await client.join(media_server.env.mint(room, "Bea"))
        data = _png()
        accepted = await offer(client, data, "image/png")
        assert await _refused(client, accepted["upload_id"], _png()) == "media_hash_mismatch"
        assert await _refused(client, accepted["upload_id"], data[:-10]) == "media_size_mismatch"
        assert await _refused(client, accepted["upload_id"], data + b"extra") == "media_size_mismatch"
        reply = await put(client, accepted["upload_id"], data)  # the id is still good
        assert reply is None or reply["op"] == "put_ok"
        await client.expect("media", timeout=20)

        attack = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'
        accepted = await offer(client, attack, "image/svg+xml")
        assert await _refused(client, accepted["upload_id"], attack) == "media_bad_svg"


async def test_an_upload_id_belongs_to_its_uploader(media_server, room, carrier):
    env = media_server.env
    async with await connect(carrier, media_server) as owner, await connect(carrier, media_server) as thief:
        await owner.join(env.mint(room, "Owner"))
        await thief.join(env.mint(room, "Thief"))
        data = _png()
        accepted = await offer(owner, data, "image/png")
        assert await _refused(thief, accepted["upload_id"], data) == "media_bad_upload"
        assert await _refused(thief, "no-such-upload", data) == "media_bad_upload"
        reply = await put(owner, accepted["upload_id"], data)
        assert reply is None or reply == {"op": "put_ok", "hash": sha(data)}, "the owner's upload is intact"
        await owner.expect("media", timeout=20)


async def test_a_member_cannot_fetch_another_rooms_file(media_server, room, carrier):
    env = media_server.env
    async with await connect(carrier, media_server) as a, await connect(carrier, media_server) as b:
        await a.join(env.mint(room, "InA"))
        await b.join(env.mint(room + "-b", "InB"))
        stored = await upload(a, _png(), "image/png")
        header, body = await get(b, stored["hash"])
        assert header["type"] == "error" and header["code"] == "media_not_found" and body == b""
        header, _ = await get(b, "0" * 64)
        assert header["code"] == "media_not_found"
        header, _ = await get(b, "../../etc/passwd")
        assert header["code"] == "media_not_found"


async def test_the_keeper_switches_uploads_off_and_on(media_server, room, carrier):
    env = media_server.env
    async with await connect(carrier, media_server) as keeper, await connect(carrier, media_server) as player:
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await player.send({"type": "media_set_enabled", "enabled": False})
        assert (await player.expect("error"))["code"] == "forbidden"
        await keeper.send({"type": "media_set_enabled", "enabled": False})
        assert (await player.expect("media_enabled"))["enabled"] is False
        assert (await offer(player, _png(), "image/png"))["code"] == "media_disabled"
        async with await connect(carrier, media_server) as late:
            frames = await late.join(env.mint(room, "Late"))
        assert {"type": "media_enabled", "enabled": False} in frames, "replayed while uploads are off"
        await keeper.send({"type": "media_set_enabled", "enabled": True})
        assert (await player.expect("media_enabled"))["enabled"] is True
        assert (await offer(player, _png(), "image/png"))["type"] == "media_accept"


async def test_rate_and_quota_limits(tight_server, room, carrier):
    env = tight_server.env
    async with await connect(carrier, tight_server) as client:
        await client.join(env.mint(room, "Quinn"))
        assert (await offer(client, _png(2500), "image/png"))["code"] == "media_too_large"  # 2000 per file
        await upload(client, _png(1500), "image/png")
        assert (await offer(client, _png(1600), "image/png"))[
            "code"
        ] == "media_quota_exceeded"  # 3000 per room
        assert (await offer(client, _png(1000), "image/png"))[
            "code"
        ] == "media_rate_limited"  # the 4th this minute


async def test_a_malformed_request_is_a_bad_frame(media_server, room, carrier):
    async with await connect(carrier, media_server) as client:
        await client.join(media_server.env.mint(room, "Mal"))
        if isinstance(client, IrohClient):
            reply = await client.media_request({"op": "delete"})
            assert reply["code"] == "bad_frame"
        else:
            await client.send(envelope({"op": "delete"}))
            assert (await client.expect("error"))["code"] == "bad_frame"
            await client.send(b"\x00\x00")
            assert (await client.expect("error"))["code"] == "bad_frame"
