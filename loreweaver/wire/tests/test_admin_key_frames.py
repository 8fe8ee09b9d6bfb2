"""Keeper admin frames for keys: gated by the role stamped
at join, confined to the caller's room, keys masked, a minted key shown once."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import IrohClient, WsClient, connect
from loreweaver.testing.servers import database_snapshot

# One of every admin frame a client can send, filled in as a keeper would.
ADMIN_FRAMES = [
    {"type": "admin_list_keys"},
    {"type": "admin_mint_key", "name": "Eve", "role": "keeper"},
    {"type": "admin_update_key", "id": "0" * 16, "role": "keeper"},
    {"type": "admin_delete_key", "id": "0" * 16},
    {"type": "admin_delete_room", "room": "x"},
    {"type": "admin_export_room", "room": "x"},
    {"type": "admin_import_room", "path": "x.json"},
    {"type": "admin_delete_room_data", "room": "x"},
    {"type": "admin_reset_room", "room": "x", "scope": "all"},
    {"type": "admin_get_config"},
    {"type": "admin_set_model", "provider": "openai", "api_key": "sk-player-should-not-set"},
    {"type": "admin_set_imagegen", "provider": "openai", "model": "img"},
    {"type": "admin_list_models", "provider": "openai", "api_key": "sk-x"},
    {"type": "admin_list_skills"},
    {"type": "admin_enable_skill", "id": "x", "on": True},
    {"type": "admin_list_rules"},
    {"type": "admin_generate", "kind": "module", "description": "a haunted mill"},
    {"type": "admin_update_server"},
]


def test_every_admin_frame_is_covered():
    from loreweaver.wire.protocol import inbound

    kinds = {
        model.model_fields["type"].annotation.__args__[0]
        for model in vars(inbound).values()
        if isinstance(model, type) and issubclass(model, inbound.Inbound) and model is not inbound.Inbound
    }
    assert {k for k in kinds if k.startswith("admin_")} == {f["type"] for f in ADMIN_FRAMES}


@pytest.mark.parametrize("frame", ADMIN_FRAMES, ids=[f["type"] for f in ADMIN_FRAMES])
async def test_a_player_gets_forbidden_and_nothing_changes(server, room, frame):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    player_key = server.env.mint(room, "Player")
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(player_key)
        await player.say("A line of story, so there is something to lose.")
        await player.expect("state")
        before = database_snapshot(server.env)
        await player.send({**frame, "room": room} if "room" in frame else frame)
        error = await player.expect("admin_error")
        assert error["code"] == "forbidden" and error["message"]
        await player.send({"type": "ping", "t": 1})
        assert (await player.expect("pong"))["t"] == 1, "admin_error never closes the connection"
        assert database_snapshot(server.env) == before
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)  # the room's keys still work


async def test_a_keeper_lists_mints_updates_and_deletes_keys_of_their_room(server, room, carrier):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    server.env.mint(room + "-elsewhere", "Stranger")
    async with await connect(carrier, server) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_list_keys"})
        listing = await keeper.expect("admin_keys")
        assert [k["name"] for k in listing["keys"]] == ["Keeper"], "only the caller's room"
        entry = listing["keys"][0]
        assert keeper_key not in str(listing) and "..." in entry["key_masked"] and len(entry["id"]) == 16
        assert entry["purpose"] == "join" and entry["expires_at"] is None and "minted" not in listing

        await keeper.send({"type": "admin_mint_key", "name": "Newcomer", "role": "player"})
        minted = await keeper.expect("admin_keys")
        new_key = minted["minted"]["key"]
        assert minted["minted"] == {
            "key": new_key,
            "room": room,
            "name": "Newcomer",
            "role": "player",
            "purpose": "join",
            "expires_at": None,
        }
        assert new_key not in str(minted["keys"])
        newcomer = next(k for k in minted["keys"] if k["name"] == "Newcomer")

        await keeper.send({"type": "admin_update_key", "id": newcomer["id"], "name": "Regular"})
        renamed = await keeper.expect("admin_keys")
        assert "Regular" in [k["name"] for k in renamed["keys"]] and "minted" not in renamed

        async with await WsClient.connect(server.ws_url) as joiner:
            welcome = (await joiner.join(new_key))[0]
        assert welcome["you"]["name"] == "Regular" and welcome["room"] == room

        await keeper.send({"type": "admin_delete_key", "id": newcomer["id"]})
        after = await keeper.expect("admin_keys")
        assert [k["name"] for k in after["keys"]] == ["Keeper"]


async def test_another_room_is_forbidden_to_a_keeper(server, room):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    other_keeper = server.env.mint(room + "-b", "Other", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_mint_key", "room": room + "-b", "name": "Sneaky"})
        assert (await keeper.expect("admin_error"))["code"] == "forbidden"
        await keeper.send({"type": "admin_delete_room", "room": room + "-b"})
        assert (await keeper.expect("admin_error"))["code"] == "forbidden"
    async with await IrohClient.connect(server.ticket) as other:
        await other.join(other_keeper)
        await other.send({"type": "admin_list_keys"})
        keys = (await other.expect("admin_keys"))["keys"]
    assert [k["name"] for k in keys] == ["Other"], "nothing was minted in the other room"


async def test_the_last_keeper_key_can_be_neither_demoted_nor_deleted(server, room):
    keeper_key = server.env.mint(room, "Only", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.send({"type": "admin_list_keys"})
        (only,) = (await keeper.expect("admin_keys"))["keys"]
        await keeper.send({"type": "admin_update_key", "id": only["id"], "role": "player"})
        assert (await keeper.expect("admin_error"))["code"] == "last_keeper"
        await keeper.send({"type": "admin_delete_key", "id": only["id"]})
        assert (await keeper.expect("admin_error"))["code"] == "last_keeper"
        await keeper.send({"type": "admin_mint_key", "name": "Second", "role": "keeper"})
        await keeper.expect("admin_keys")
        await keeper.send({"type": "admin_update_key", "id": only["id"], "role": "player"})
        demoted = await keeper.expect("admin_keys")
    assert {k["name"]: k["role"] for k in demoted["keys"]} == {"Only": "player", "Second": "keeper"}


async def test_deleting_a_room_removes_its_keys_only(server, room):
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    player_key = server.env.mint(room, "Player")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.say("A line that stays.")
        await keeper.expect("narrative")
        await keeper.send({"type": "admin_delete_room", "room": room})
        op = await keeper.expect("admin_room_op")
    assert op == {
        "type": "admin_room_op",
        "action": "delete",
        "room": room,
        "keys": 2,
        "store_rows": 0,
        "vector_points": 0,
    }
    async with await WsClient.connect(server.ws_url) as player:
        await player.send({"type": "join", "key": player_key})
        assert (await player.wait_closed())[0]["code"] == "bad_key"
