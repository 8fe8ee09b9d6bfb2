"""A room's export reads its rows in one short transaction, then copies its blobs
outside any transaction and off the database thread: while room A's export is held
midway through its media (the failpoint `export.stream@hold`), room A's and room B's
dice are answered and A's lines are stored, and the file, once written, restores the
rows as they were when the export read them (docs/architecture.md, "Where to add things")."""

from __future__ import annotations

import asyncio
import os
import zipfile

from loreweaver.testing.clients import WsClient, human_keeper_narrates
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import backup_folder, dedicated_server, release_failpoint

held_export = dedicated_server(TRPG_FAILPOINTS="export.stream@hold")


async def test_other_turns_are_answered_while_an_export_copies_blobs_and_it_restores_its_snapshot(
    held_export, room
):
    server, other = held_export, f"{room}-b"
    await human_keeper_narrates(server, room)  # the lines are the story: no Keeper turns
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
        await WsClient.connect(server.ws_url) as elsewhere,
    ):
        await keeper.join(keeper_key)
        await player.join(server.env.mint(room, "Pat"))
        await elsewhere.join(server.env.mint(other, "Bo"))
        await keeper.say("Before the export.")
        await keeper.expect("narrative", text="Before the export.")
        for n in range(2):  # two blobs: the hold comes after the first one is copied
            await upload(keeper, b"ID3\x04" + os.urandom(256 * 1024), "audio/mpeg", f"track-{n}.mp3")

        await keeper.send({"type": "admin_export_room", "room": room, "path": f"{room}-held"})
        await asyncio.to_thread(server.wait_for_log, "failpoint export.stream holds", 30)
        try:
            await elsewhere.say(".r 1d6")
            await elsewhere.expect("dice")
            await player.say(".r 1d6")
            await player.expect("dice")
            await player.say("After the export began.")
            await player.expect("narrative", text="After the export began.")
        finally:
            release_failpoint(server, "export.stream")
        op = await keeper.expect("admin_room_op", timeout=30)
        assert op["action"] == "export" and op["path"] == f"{room}-held.zip" and op["media_files"] == 2

        await keeper.send({"type": "admin_import_room", "path": f"{room}-held"})
        restored = await keeper.expect("admin_room_op", timeout=30)
        assert restored["action"] == "import" and restored["media_files"] == 2

    archive = backup_folder(server.env, room) / f"{room}-held.zip"
    with zipfile.ZipFile(archive) as zipped:
        assert len(zipped.namelist()) == 3, "the document and the two blobs"
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(keeper_key)
    lines = [f["text"] for f in frames if f["type"] == "narrative" and f.get("speaker") != "system"]
    assert "Before the export." in lines
    assert "After the export began." not in lines, "the export is the room as its rows were read"
    assert len([f for f in frames if f["type"] == "audio_library_item"]) == 2
