"""Backups that can be trusted: a room exported, deleted and
imported on a FRESH server comes back whole (its old keys join again, and a joiner's
replay is identical), a backup that cannot be written changes nothing, and an import
that fails half-way leaves nothing behind."""

from __future__ import annotations

import shutil

import pytest

from loreweaver.testing.backups import rewrite_backup
from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.servers import (
    backup_folder,
    create_env,
    database_snapshot,
    destroy_env,
    hosted_profile,
    start_serve,
)

PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
SONG = b"ID3\x04" + bytes(reversed(range(256))) * 300


def _story(frames: list[dict]) -> list[dict]:
    return [
        f for f in frames if f["type"] in ("narrative", "dice", "media", "audio_library_item", "audio_state")
    ]


async def _table_with_story(server, room: str) -> tuple[str, str]:
    env = server.env
    keeper_key, player_key = env.mint(room, "Kay", "keeper"), env.mint(room, "Pat")
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
    ):
        await keeper.join(keeper_key)
        await player.join(player_key)
        await keeper.say(".bot off")  # the keeper narrates: the story is the lines below
        await keeper.expect("narrative", speaker="system")
        await player.say(".coc Pat")
        await player.expect("narrative", speaker="system")
        await keeper.say(".npc add Ruth | the harbour master | she took the money")
        await keeper.expect("narrative", speaker="system", text="NPC Ruth saved.")
        await player.say("I knock on the lighthouse door.")
        await player.expect("narrative", text="I knock on the lighthouse door.")
        await player.say(".ra spot_hidden")
        await player.expect("dice")
        await keeper.say("Nobody answers.")
        await player.expect("narrative", text="Nobody answers.")
        await upload(player, PICTURE, "image/png", "door.png")
        await upload(keeper, SONG, "audio/mpeg", "waves.mp3")
        await keeper.say(".bgm play waves.mp3 --loop")
        await player.expect("audio_control")
    return keeper_key, player_key


async def _replay(server, key: str) -> list[dict]:
    async with await WsClient.connect(server.ws_url) as client:
        return _story(await client.join(key))


async def test_a_room_comes_back_whole_on_a_fresh_server(tmp_path, room):
    first_env = create_env(tmp_path / "first", hosted=hosted_profile())
    second_env = create_env(tmp_path / "second", hosted=hosted_profile())
    first = start_serve(first_env)
    try:
        keeper_key, player_key = await _table_with_story(first, room)
        before = await _replay(first, player_key)
        async with await WsClient.connect(first.ws_url) as keeper:
            await keeper.join(keeper_key)
            await keeper.send({"type": "admin_delete_room_data", "room": room, "path": "moving"})
            op = await keeper.expect("admin_room_op")
            assert op["action"] == "delete" and op["keys"] == 2 and op["media_files"] == 2
        async with await WsClient.connect(first.ws_url) as gone:
            await gone.send({"type": "join", "key": player_key})
            assert (await gone.wait_closed())[0]["code"] == "bad_key"
    finally:
        first.stop()

    (second_env.data_dir / "room_backups").mkdir()
    # One file: the document and the media in it.
    shutil.copy(backup_folder(first_env, room) / "moving.zip", second_env.data_dir / "room_backups")
    second = start_serve(second_env)
    try:
        async with await WsClient.connect(second.ws_url) as importer:
            await importer.join(second_env.mint(room, "Importer", "keeper"))
            await importer.send({"type": "admin_import_room", "path": "moving.zip"})
            op = await importer.expect("admin_room_op")
            assert op["action"] == "import" and op["keys"] == 2 and op["media_files"] == 2
        after = await _replay(second, player_key)
        async with await WsClient.connect(second.ws_url) as keeper:
            await keeper.join(keeper_key)  # the old keeper key joins the new server
            await keeper.say(".npc")
            npcs = (await keeper.expect("narrative", speaker="system"))["text"]
        async with await IrohClient.connect(second.ticket) as player:
            await player.join(player_key)
            picture = await get(player, sha(PICTURE))
            song = await get(player, sha(SONG))
    finally:
        second.stop()
        destroy_env(first_env)
        destroy_env(second_env)
    assert after == before, "same lines, same ids, the dice in place, the same files and music"
    assert [f["type"] for f in before] == [
        "narrative",
        "dice",
        "narrative",
        "media",
        "audio_library_item",
        "audio_state",
    ]
    assert "Ruth" in npcs and "she took the money" in npcs
    assert picture[1] == PICTURE and song[1] == SONG, "the bytes came back with the backup"


@pytest.fixture
async def table(fresh_env, room):
    server = start_serve(fresh_env)
    keeper_key, _ = await _table_with_story(server, room)
    yield server, keeper_key
    server.stop()


async def test_a_backup_that_cannot_be_written_changes_nothing(table, room):
    server, keeper_key = table
    blocker = backup_folder(server.env, room) / ".blocked.zip.tmp"
    blocker.mkdir(parents=True)  # where the backup is written first: it cannot land
    before = database_snapshot(server.env)
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_delete_room_data", "room": room, "path": "blocked"})
        error = await keeper.expect("admin_error")
        assert error["code"] == "op_failed" and error["message"]
        await keeper.send({"type": "admin_export_room", "room": room, "path": "blocked"})
        assert (await keeper.expect("admin_error"))["code"] == "op_failed"
    assert database_snapshot(server.env) == before
    left = [p for p in (server.env.data_dir / "room_backups").rglob(".*.tmp") if p != blocker]
    assert not left, "no temporary file is left"
    assert not (blocker.parent / "blocked.zip").exists()


async def test_an_import_that_fails_half_way_leaves_nothing_behind(table, room):
    server, keeper_key = table
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_export_room", "room": room, "path": "good"})
        await keeper.expect("admin_room_op")
    folder = backup_folder(server.env, room)
    # A character the model does not know: it fails after the keys and transcript were written.
    rewrite_backup(
        folder / "good.zip",
        folder / "damaged.zip",
        lambda document: document["characters"].append({"name": "Broken", "hit_points": 3}),
    )
    async with await WsClient.connect(server.ws_url) as importer:
        await importer.join(keeper_key)
        before = database_snapshot(server.env)
        await importer.send({"type": "admin_import_room", "path": "damaged"})
        error = await importer.expect("admin_error")
    assert error["code"] == "bad_request" and "damaged" in error["message"]
    after = database_snapshot(server.env)
    # The only new row indexes the file copied in; nothing of the damaged import stays.
    assert "damaged.zip" in repr(after.pop("rooms_roombackup"))
    before.pop("rooms_roombackup")
    assert after == before
