"""A backup is one file with everything in it (docs/operations.md, "Backups"): downloaded
from the keeper's tab over HTTP and restored on another server, it brings back the
story, the characters with what they carry, the quests and every picture and sound, byte
for byte. A backup an earlier version wrote (a `.json` document with its `.media.zip`
beside it) still restores, and downloads as one archive that restores elsewhere too."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

from loreweaver.testing.backups import backup_document, copy_earlier_backup, download_backup, listed_backups
from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.servers import ServerEnv, create_env, destroy_env, hosted_profile, start_serve

MIB = 1024 * 1024
# A few MiB of media in three files: bytes no compression shrinks, as real media's.
PICTURE = b"\x89PNG\r\n\x1a\n" + os.urandom(MIB)
SONGS = [b"ID3\x04" + os.urandom(3 * MIB // 2) for _ in range(2)]
EARLIER = Path(__file__).parent / "fixtures" / "earlier-version"
# The keys the earlier version's backup was written with (it carries their digests).
EARLIER_KEEPER = "legacy-keeper-key-0000000000000000"
EARLIER_PLAYER = "legacy-player-key-0000000000000000"


async def _play(server, room: str) -> tuple[str, str]:
    """A room with a story, a character who carries things, quests and three files."""
    keeper_key, player_key = server.env.mint(room, "Kay", "keeper"), server.env.mint(room, "Pat")
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as pat,
    ):
        await kay.join(keeper_key)
        await pat.join(player_key)
        await system_answer(kay, ".bot off")  # the keeper narrates: the story is the lines below
        await system_answer(pat, ".coc Pat")
        await system_answer(pat, ".inv add Lantern | tool | Brass")
        await system_answer(pat, ".money +7")
        await system_answer(kay, ".quest add Light the lamp | Why is it dark?")
        await system_answer(kay, ".quest secret Ruth's bribe")
        await pat.say("I knock on the lighthouse door.")
        await pat.expect("narrative", text="I knock on the lighthouse door.")
        await kay.say("Nobody answers.")
        await pat.expect("narrative", text="Nobody answers.")
        await upload(pat, PICTURE, "image/png", "door.png")
        for n, song in enumerate(SONGS):
            await upload(kay, song, "audio/mpeg", f"waves-{n}.mp3")
    return keeper_key, player_key


def _copy_in(file: Path, env: ServerEnv) -> None:
    """What an operator does with a backup from elsewhere: put it in `room_backups/`."""
    folder = env.data_dir / "room_backups"
    folder.mkdir(exist_ok=True)
    shutil.copy(file, folder / file.name)


async def _restore(server, room: str, name: str) -> dict:
    """A keeper of `room` on `server` restores the backup called `name` into it."""
    async with await WsClient.connect(server.ws_url) as importer:
        await importer.join(server.env.mint(room, "Importer", "keeper"))
        await importer.send({"type": "admin_import_room", "path": name})
        return await importer.expect("admin_room_op", timeout=60)


async def _seen_by(server, key: str) -> tuple[dict, list[str], dict[str, bytes]]:
    """What a member sees on joining: the last `state`, the story lines, and every file
    of the room fetched by its hash."""
    async with await WsClient.connect(server.ws_url) as member:
        frames = await member.join(key)
        state = [f for f in frames if f["type"] == "state"][-1]
        lines = [f["text"] for f in frames if f["type"] == "narrative" and f.get("speaker") != "system"]
        hashes = [f["hash"] for f in frames if f["type"] in ("media", "audio_library_item")]
        files = {digest: (await get(member, digest))[1] for digest in hashes}
    return state, lines, files


async def test_a_downloaded_backup_brings_the_whole_room_back_on_another_server(tmp_path, room):
    first_env = create_env(tmp_path / "first", hosted=hosted_profile())
    second_env = create_env(tmp_path / "second", hosted=hosted_profile())
    first = start_serve(first_env)
    try:
        keeper_key, player_key = await _play(first, room)
        async with await WsClient.connect(first.ws_url) as kay:
            await kay.join(keeper_key)
            await kay.send({"type": "admin_export_room", "room": room, "path": "travelling"})
            written = await kay.expect("admin_room_op", timeout=60)
        assert written["media_files"] == 3
        (listed,) = listed_backups(first, keeper_key)
        downloaded = download_backup(first, keeper_key, listed["name"], tmp_path)
    finally:
        first.stop()
    assert listed["name"] == written["path"] == downloaded.name
    assert listed["size"] == downloaded.stat().st_size > 4 * MIB, "one file, the media in it"
    assert backup_document(downloaded)["room"] == room

    _copy_in(downloaded, second_env)
    second = start_serve(second_env)
    try:
        restored = await _restore(second, room, downloaded.name)
        player_state, lines, files = await _seen_by(second, player_key)
        keeper_state, _lines, _files = await _seen_by(second, keeper_key)
    finally:
        second.stop()
        destroy_env(first_env)
        destroy_env(second_env)
    assert restored["action"] == "import" and restored["media_files"] == 3
    assert lines == ["I knock on the lighthouse door.", "Nobody answers."]
    assert player_state["character"]["items"] == [
        {"name": "Lantern", "kind": "tool", "quantity": 1, "equipped": False, "description": "Brass"}
    ]
    assert player_state["character"]["money"] == 7
    assert keeper_state["quests"] == [
        {"name": "Light the lamp", "status": "in_progress", "description": "Why is it dark?"},
        {"name": "Ruth's bribe", "status": "in_progress", "description": "", "secret": True},
    ]
    assert sorted(files) == sorted(sha(data) for data in (PICTURE, *SONGS))
    assert all(sha(data) == digest for digest, data in files.items()), "every file, byte for byte"


async def test_a_backup_an_earlier_version_wrote_still_restores_and_downloads_whole(tmp_path):
    room = "gull-rock"  # the room the earlier version's document names
    first_env = create_env(tmp_path / "first", hosted=hosted_profile())
    second_env = create_env(tmp_path / "second", hosted=hosted_profile())
    earlier_size = copy_earlier_backup(first_env.data_dir / "room_backups")
    earlier_media = backup_document(EARLIER / "before-the-archive.json")["media"]
    first = start_serve(first_env)
    try:
        restored = await _restore(first, room, "before-the-archive.json")
        state, lines, files = await _seen_by(first, EARLIER_PLAYER)
        backups = listed_backups(first, EARLIER_KEEPER)
        assert any(b["name"].startswith("before-restore-") for b in backups), "the room as it was, kept first"
        listed = next(b for b in backups if b["name"].startswith("before-the-archive"))
        downloaded = download_backup(first, EARLIER_KEEPER, listed["name"], tmp_path)
    finally:
        first.stop()
    assert restored["action"] == "import" and restored["media_files"] == 2
    assert lines == ["I knock on the lighthouse door.", "Nobody answers."]
    assert state["character"]["money"] == 7 and state["character"]["items"][0]["name"] == "Lantern"
    assert sorted(sha(data) for data in files.values()) == sorted(item["sha256"] for item in earlier_media)
    assert listed["size"] == earlier_size, "the document and its media archive"
    assert downloaded.name == "before-the-archive.zip" and zipfile.is_zipfile(downloaded)

    _copy_in(downloaded, second_env)  # the one file alone
    second = start_serve(second_env)
    try:
        again = await _restore(second, room, downloaded.name)
        _state, lines_again, files_again = await _seen_by(second, EARLIER_PLAYER)
    finally:
        second.stop()
        destroy_env(first_env)
        destroy_env(second_env)
    assert again["media_files"] == 2 and lines_again == lines
    assert {sha(data) for data in files_again.values()} == {item["sha256"] for item in earlier_media}
