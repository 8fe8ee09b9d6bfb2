"""A backup download whose reader goes away midway (a closed tab, a dropped link) ends
quietly: the server logs how far it got, no error, and serves the next download whole
(docs/operations.md, "Backups")."""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import time

from loreweaver.testing.backups import download_backup
from loreweaver.testing.clients import WsClient
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import backup_folder, start_serve

STOPPED = "the download stopped after"


def _cut_short(server, key: str, *, reset: bool) -> None:
    """Ask for the backup over a bare socket, take its first bytes, and go away (with a
    reset when `reset`, else a plain close)."""
    host, port = server.ws_url.removeprefix("ws://").rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as reader:
        reader.sendall(
            f"GET /table/backups/big.zip HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {key}\r\n\r\n".encode()
        )
        assert reader.recv(64 * 1024).startswith(b"HTTP/1.1 200")
        if reset:
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _wait_for_count(server, text: str, count: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while server.log_text().count(text) < count:
        assert time.monotonic() < deadline, f"{text!r} not logged {count} times:\n{server.log_text()[-3000:]}"
        time.sleep(0.05)


async def test_a_reader_that_goes_away_leaves_no_error_and_the_next_download_is_whole(
    fresh_env, tmp_path, room
):
    server = start_serve(fresh_env, "--no-iroh", TRPG_MEDIA__UPLOADS_PER_MINUTE="1000")
    try:
        key = fresh_env.mint(room, "Kay", "keeper")
        async with await WsClient.connect(server.ws_url) as kay:
            await kay.join(key)
            for n in range(3):  # more than the sockets' buffers hold
                await upload(kay, b"ID3\x04" + os.urandom(4 * 1024 * 1024), "audio/mpeg", f"t{n}.mp3")
            await kay.send({"type": "admin_export_room", "room": room, "path": "big"})
            await kay.expect("admin_room_op", timeout=30)
        await asyncio.to_thread(_cut_short, server, key, reset=False)
        await asyncio.to_thread(_cut_short, server, key, reset=True)
        await asyncio.to_thread(_wait_for_count, server, STOPPED, 2)
        whole = await asyncio.to_thread(download_backup, server, key, "big", tmp_path)
        await asyncio.to_thread(server.wait_for_log, "big.zip downloaded")
        log = server.log_text()
    finally:
        server.stop()
    assert whole.read_bytes() == (backup_folder(fresh_env, room) / "big.zip").read_bytes()
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]
