"""`manage.py restore_room` takes the path of a backup archive anywhere on the machine
(one downloaded from another server): it copies the file into `room_backups/`, restores
the room from it with its media, and refuses a second copy under a name the backups
folder already has, rather than writing over it (docs/operations.md, "Restoring")."""

from __future__ import annotations

import os

from loreweaver.testing.backups import download_backup
from loreweaver.testing.clients import WsClient
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

SONG = b"ID3\x04" + os.urandom(200 * 1024)


async def test_a_downloaded_archive_restores_from_its_path_once(tmp_path, room):
    first_env = create_env(tmp_path / "first", hosted=hosted_profile())
    second_env = create_env(tmp_path / "second", hosted=hosted_profile())
    first = start_serve(first_env, "--no-iroh")
    try:
        keeper_key = first_env.mint(room, "Kay", "keeper")
        async with await WsClient.connect(first.ws_url) as kay:
            await kay.join(keeper_key)
            await kay.say(".bot off")
            await kay.expect("narrative", speaker="system")
            await kay.say("The bell rings twice.")
            await kay.expect("narrative", text="The bell rings twice.")
            await upload(kay, SONG, "audio/mpeg", "bell.mp3")
            await kay.send({"type": "admin_export_room", "room": room, "path": "to-carry"})
            await kay.expect("admin_room_op", timeout=30)
        downloads = tmp_path / "downloads"
        downloads.mkdir()
        archive = download_backup(first, keeper_key, "to-carry", downloads)
    finally:
        first.stop()

    try:
        restored = second_env.manage("restore_room", str(archive))
        again = second_env.manage("restore_room", str(archive))
        second = start_serve(second_env, "--no-iroh")
        try:
            async with await WsClient.connect(second.ws_url) as kay:
                frames = await kay.join(keeper_key)  # the key travelled with the backup
                _header, song = await get(kay, sha(SONG))
        finally:
            second.stop()
    finally:
        destroy_env(first_env)
        destroy_env(second_env)
    assert restored.returncode == 0, restored.stderr
    assert "copied into room_backups/ as to-carry.zip" in restored.stdout
    assert f"into room {room!r}" in restored.stdout and "1 media files" in restored.stdout
    assert again.returncode != 0 and "to-carry.zip here already" in again.stderr
    assert "The bell rings twice." in [f["text"] for f in frames if f["type"] == "narrative"]
    assert sha(song) == sha(SONG)
