"""The console's Backups page and the keeper's tab list a room's backups alike, each
with the size of its whole archive (an earlier version's backup: its document and its
media archive together), and both download the same one file (docs/operations.md,
"Backups")."""

from __future__ import annotations

import hashlib
import os
import re

from django.template.defaultfilters import filesizeformat

from loreweaver.testing.backups import copy_earlier_backup, download_backup, listed_backups
from loreweaver.testing.clients import WsClient
from loreweaver.testing.media_clients import upload
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import backup_folder, start_serve


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def test_both_list_the_same_backups_with_their_whole_sizes_and_download_the_same_file(
    fresh_env, tmp_path
):
    room = "gull-rock"  # the room the earlier version's backup names
    server = start_serve(fresh_env)
    try:
        keeper_key = fresh_env.mint(room, "Kay", "keeper")
        async with await WsClient.connect(server.ws_url) as kay:
            await kay.join(keeper_key)
            await upload(kay, b"ID3\x04" + os.urandom(300 * 1024), "audio/mpeg", "bell.mp3")
            await kay.send({"type": "admin_export_room", "room": room, "path": "with-the-bell"})
            await kay.expect("admin_room_op", timeout=30)
        earlier_size = copy_earlier_backup(backup_folder(fresh_env, room))

        tab = listed_backups(server, keeper_key)
        operator = OperatorSession(server)
        page = operator.get("/admin/rooms/room/backups/")
        archive = download_backup(server, keeper_key, "with-the-bell", tmp_path)
        download = re.search(r'<td>with-the-bell\.zip</td>.*?href="([^"]+/download/)"', page, re.S)
        assert download, page
        with operator.opener.open(operator.base + download.group(1), timeout=30) as answer:
            from_the_console = answer.read()
    finally:
        server.stop()

    sizes = {backup["name"]: backup["size"] for backup in tab}
    assert sizes == {"with-the-bell.zip": archive.stat().st_size, "before-the-archive.json": earlier_size}
    for name, size in sizes.items():
        row = re.search(rf"<td>{re.escape(name)}</td>\s*<td>([^<]+)</td>", page)
        assert row and row.group(1).replace("\xa0", " ") == filesizeformat(size).replace("\xa0", " "), name
    assert _digest(from_the_console) == _digest(archive.read_bytes()), "the same one file"
