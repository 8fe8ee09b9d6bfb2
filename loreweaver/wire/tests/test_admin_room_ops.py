"""Room operations from a keeper connection: export, import, delete data, reset, and the
rule list (docs/decisions.md, "Keys and keeper administration")."""

from __future__ import annotations

import json

import pytest

from loreweaver.testing.backups import backup_document
from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import backup_folder


async def _keeper_with_story(server, room):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    keeper = await WsClient.connect(server.ws_url)
    await keeper.join(keeper_key)
    await keeper.say(".bot off")  # the keeper narrates: the story is the lines below
    await keeper.expect("narrative", speaker="system")
    await keeper.say(".coc Walter")
    await keeper.expect("state")
    await keeper.say("The fog rolls in.")
    await keeper.expect("narrative", text="The fog rolls in.")
    await keeper.say(".ra 侦查50")
    await keeper.expect("dice")
    return keeper, keeper_key


async def test_an_export_writes_a_backup_of_digests_under_room_backups(server, room):
    keeper, keeper_key = await _keeper_with_story(server, room)
    async with keeper:
        await keeper.send({"type": "admin_export_room", "room": room, "path": f"{room}-save"})
        op = await keeper.expect("admin_room_op")
    assert op["action"] == "export" and op["path"] == f"{room}-save.zip" and op["keys"] == 1
    assert op["store_rows"] >= 3 and op["vector_points"] == 0
    document = backup_document(backup_folder(server.env, room) / f"{room}-save.zip")
    assert document["format"] == "loreweaver-django-room" and document["version"] == 1
    assert keeper_key not in json.dumps(document), "keys travel as digests"
    assert [line["text"] for line in document["transcript"]] == ["The fog rolls in."]
    events = document["turn_events"]
    assert next(e for e in events if e["frame"]["type"] == "dice")["anchor"] == 0, "the roll after line 0"
    made = next(e for e in events if e["frame"].get("text", "").startswith("Keeper made Walter"))
    assert made["anchor"] is None, "a command's answer to the table, before the first line"


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "../escape.json", "sub/dir.json", "..", "a\\b.json", ".hidden"]
)
async def test_a_backup_path_outside_the_folder_is_a_bad_request(server, room, path):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_export_room", "room": room, "path": path})
        error = await keeper.expect("admin_error")
        await keeper.send({"type": "admin_import_room", "path": path})
        error_import = await keeper.expect("admin_error")
    assert error["code"] == error_import["code"] == "bad_request"
    assert str(server.env.data_dir) not in error["message"]


async def test_a_reset_clears_the_story_keeps_keys_and_tells_everyone(server, room):
    keeper, keeper_key = await _keeper_with_story(server, room)
    player_key = server.env.mint(room, "Player")
    async with keeper, await IrohClient.connect(server.ticket) as player:
        await player.join(player_key)
        await keeper.send({"type": "admin_reset_room", "room": room})
        op = await keeper.expect("admin_room_op")
        assert op["action"] == "reset" and op["scope"] == "story" and op["store_rows"] >= 2
        reset_state = await player.expect("state", reset=True)
        assert reset_state["party"], "story reset keeps the characters"
        await keeper.send({"type": "admin_reset_room", "room": room, "scope": "chars"})
        assert (await keeper.expect("admin_room_op"))["scope"] == "chars"
        assert (await player.expect("state", reset=True))["party"] == []
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(keeper_key)
    assert not [f for f in frames if f["type"] in ("narrative", "dice")], (
        "the story is gone; the key still joins"
    )


async def test_a_keeper_cannot_restore_another_rooms_backup_on_a_fresh_server(server, room, tmp_path):
    from loreweaver.testing.servers import create_env, destroy_env, start_serve

    keeper, _ = await _keeper_with_story(server, room)
    async with keeper:
        await keeper.send({"type": "admin_export_room", "room": room, "path": "moving"})
        await keeper.expect("admin_room_op")
    backup = (backup_folder(server.env, room) / "moving.zip").read_bytes()

    fresh = create_env(tmp_path / "fresh", hosted=server.env.hosted)
    (fresh.data_dir / "room_backups").mkdir()
    (fresh.data_dir / "room_backups" / "moving.zip").write_bytes(backup)  # the operator copied it in
    other = start_serve(fresh)
    try:
        new_keeper = fresh.mint("new-home", "Keeper2", "keeper")
        async with await WsClient.connect(other.ws_url) as client:
            await client.join(new_keeper)
            await client.send({"type": "admin_import_room", "path": "moving.zip", "room": "new-home"})
            refused = await client.expect("admin_error")
        async with await WsClient.connect(other.ws_url) as client:
            frames = await client.join(new_keeper)
    finally:
        other.stop()
        destroy_env(fresh)
    # Another room's backup goes into new-home only by the operator's hand (the console).
    assert refused["code"] == "not_found"
    assert not [f for f in frames if f["type"] in ("narrative", "dice")]


async def test_deleting_room_data_backs_up_first_then_removes_keys_and_story(server, room):
    keeper, keeper_key = await _keeper_with_story(server, room)
    async with keeper:
        await keeper.send({"type": "admin_delete_room_data", "room": room, "path": f"{room}-last"})
        op = await keeper.expect("admin_room_op")
    assert op["action"] == "delete" and op["keys"] == 1 and op["path"] == f"{room}-last.zip"
    backup = backup_document(backup_folder(server.env, room) / f"{room}-last.zip")
    assert backup["transcript"][0]["text"] == "The fog rolls in."
    async with await WsClient.connect(server.ws_url) as client:
        await client.send({"type": "join", "key": keeper_key})
        assert (await client.wait_closed())[0]["code"] == "bad_key"


async def test_the_rule_list_marks_the_built_in_systems(server, room):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_list_rules"})
        rules = await keeper.expect("admin_rules")
    listed = {system["id"]: system for system in rules["systems"]}
    assert listed["coc7"]["built_in"] and listed["dnd5e"]["built_in"]
    assert listed["coc7"]["name"] == {"en": "Call of Cthulhu 7e", "zh": "克苏鲁的呼唤 第七版"}, (
        "shown by name"
    )
