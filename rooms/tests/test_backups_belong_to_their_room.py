"""A room's backups are its own: a keeper reaches only their room's backups by name, so
the names of another room's backups (dated ones are easy to guess) do not exist for
them (docs/operations.md, "Backups")."""

from __future__ import annotations

import json

from loreweaver.testing.backups import backup_document
from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import backup_folder, database_snapshot


async def _keeper(server, room: str, name: str) -> tuple[WsClient, str]:
    key = server.env.mint(room, name, "keeper")
    client = await WsClient.connect(server.ws_url)
    await client.join(key)
    return client, key


async def test_a_keeper_cannot_read_another_rooms_backup(server, room):
    other = f"{room}-other"
    async with (await _keeper(server, room, "Owner"))[0] as owner:
        await owner.say(".bot off")  # the keeper narrates: no Keeper turn still writing below
        await owner.expect("narrative", speaker="system")
        await owner.say(".npc add Vera | a widow | SENTINEL-she-poisoned-the-well")
        await owner.expect("narrative", speaker="system")
        await owner.say("The well is dry.")
        await owner.expect("narrative", text="The well is dry.")
        await owner.send({"type": "admin_export_room", "room": room, "path": "secret-plans"})
        await owner.expect("admin_room_op")
        await owner.send({"type": "admin_export_room", "room": room})
        dated = (await owner.expect("admin_room_op"))["path"]

    snooper, snooper_key = await _keeper(server, other, "Snooper")
    async with snooper:
        before = database_snapshot(server.env)
        for name in ("secret-plans", "secret-plans.zip", "secret-plans.json", dated):
            await snooper.send({"type": "admin_import_room", "path": name})
            refused = await snooper.expect("admin_error")
            assert refused["code"] == "not_found" and "SENTINEL" not in json.dumps(refused)
        await snooper.say(".save load secret-plans")
        answer = await snooper.expect("narrative", speaker="system")
        assert "secret-plans" in answer["text"] and "SENTINEL" not in answer["text"]
        assert database_snapshot(server.env) == before, "nothing was restored"
    async with await WsClient.connect(server.ws_url) as again:
        replay = await again.join(snooper_key)
    assert "SENTINEL" not in json.dumps(replay) and "well is dry" not in json.dumps(replay)


async def test_each_room_names_its_backups_without_touching_another_rooms(server, room):
    other = f"{room}-next-door"
    first, _ = await _keeper(server, room, "First")
    second, _ = await _keeper(server, other, "Second")
    async with first, second:
        await first.send({"type": "admin_export_room", "room": room, "path": "session-1"})
        await first.expect("admin_room_op")
        await second.send({"type": "admin_export_room", "room": other, "path": "session-1"})
        await second.expect("admin_room_op")
        ours = backup_folder(server.env, room) / "session-1.zip"
        written = ours.read_bytes()
        await first.send({"type": "admin_export_room", "room": room, "path": "session-1"})
        refused = await first.expect("admin_error")
        await first.say(".save session-1")
        saved = await first.expect("narrative", speaker="system")
    assert refused["code"] == "bad_request" and "session-1.zip" in refused["message"]
    assert "session-1.zip" in saved["text"] and ours.read_bytes() == written, "an export never overwrites"
    assert backup_document(backup_folder(server.env, other) / "session-1.zip")["room"] == other
