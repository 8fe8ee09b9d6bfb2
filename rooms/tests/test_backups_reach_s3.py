"""With S3 media storage, scheduled backups are copied to the bucket as well, rotated
there too, and `manage.py restore_room` brings a room back on a server that lost its
disk and its database, from the bucket alone (docs/operations.md, "Scheduled backups")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve


async def _play_a_line(env, room: str, text: str) -> None:
    server = start_serve(env, "--no-iroh")
    try:
        async with await WsClient.connect(server.ws_url) as member:
            await member.join(env.mint(room, "Pip"))
            await member.say(text)
            await member.expect("narrative", text=text)
    finally:
        server.stop()


async def _replayed(env, room: str) -> list[str]:
    server = start_serve(env, "--no-iroh")
    try:
        async with await WsClient.connect(server.ws_url) as member:
            joined = await member.join(env.mint(room, "Ida"))
        return [f["text"] for f in joined if f["type"] == "narrative"]
    finally:
        server.stop()


async def test_scheduled_backups_reach_the_bucket_and_restore_on_a_server_that_lost_everything(
    tmp_path, s3, room
):
    first = create_env(tmp_path / "first", hosted=hosted_profile(), **s3.settings())
    second = create_env(tmp_path / "second", hosted=hosted_profile(), **s3.settings())
    try:
        await _play_a_line(first, room, "The lamp gutters in the crypt.")
        for _run in range(3):
            ran = first.manage("backup_rooms", "--keep", "2")
            assert ran.returncode == 0, ran.stderr
            assert "copied to the media storage" in ran.stdout
        (folder,) = (first.data_dir / "room_backups").glob(f"*-{room}")
        on_disk = sorted(p.name for p in folder.glob("scheduled-*.zip"))
        in_bucket = [key.rsplit("/", 1)[-1] for key in s3.keys(f"room_backups/{folder.name}/")]
        assert len(on_disk) == 2 and sorted(in_bucket) == on_disk, "rotated in both places"

        # Another server, its own empty disk and database, the same bucket.
        restored = second.manage("restore_room", on_disk[-1])
        assert restored.returncode == 0, restored.stderr
        assert f"into room {room!r}" in restored.stdout
        assert "The lamp gutters in the crypt." in await _replayed(second, room)

        missing = second.manage("restore_room", "scheduled-19990101-000000-000000.zip")
        assert missing.returncode != 0 and "no backup called" in missing.stderr
    finally:
        destroy_env(first)
        destroy_env(second)
