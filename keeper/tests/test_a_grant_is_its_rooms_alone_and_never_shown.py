"""A subscription grant belongs to the room whose keeper signed in: another room on
the same provider is `logged_out` and its lines never reach the provider; the tokens
are sealed in the database and appear in no frame, log, backup or export; `.model
logout` forgets them (docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

import zipfile

from keeper.tests.signing_in import Recording, private_line, sign_in, signing_table
from loreweaver.testing.clients import settle, until_idle
from loreweaver.testing.fake_llm import Text
from loreweaver.testing.servers import backup_folder, database_snapshot

table = signing_table()


async def _status(keeper) -> str:
    await keeper.send({"type": "admin_get_config"})
    return (await keeper.expect("admin_config"))["subscription_status"]


async def test_another_room_cannot_use_the_grant_and_logout_forgets_it(table, room):
    server, auth, xai = table
    env, other = server.env, room + "-next-door"
    async with (
        await Recording.connect(server.ws_url) as keeper,
        await Recording.connect(server.ws_url) as player,
        await Recording.connect(server.ws_url) as keeper_b,
        await Recording.connect(server.ws_url) as player_b,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await keeper_b.join(env.mint(other, "Bea", "keeper"))
        await player_b.join(env.mint(other, "Bo"))
        await sign_in(keeper, auth, "supergrok")
        for chooser in (keeper, keeper_b):
            await chooser.say(".model set supergrok")
            await private_line(chooser, "Switched")
        assert await _status(keeper) == "logged_in"
        assert await _status(keeper_b) == "logged_out"
        await settle(player)
        await settle(player_b)

        asked = len(xai.chat_requests())
        await player_b.say("Is anyone there?")
        await until_idle(player_b)
        assert len(xai.chat_requests()) == asked, "room B's lines never reach A's subscription"

        xai.script(Text("Room A's Keeper answers."))
        await player.say("Hello")
        await until_idle(player)
        token = auth.issued[-2]
        assert xai.chat_requests()[-1]["authorization"] == f"Bearer {token}"

        await keeper.send({"type": "admin_export_room", "room": room, "path": "with-a-grant"})
        await keeper.expect("admin_room_op")
        await keeper.say(".model logout")
        assert "Signed out of supergrok" in await private_line(keeper, "Signed out")
        assert await _status(keeper) == "logged_out"
        await settle(player)
        asked = len(xai.chat_requests())
        await player.say("Still there?")
        await until_idle(player)
        assert len(xai.chat_requests()) == asked, "forgotten: the offline Keeper answers"
        await keeper.say(".model logout")
        assert "not signed in" in await private_line(keeper, "signed in")
        for client in (keeper, player, keeper_b, player_b):
            await settle(client)
        frames = str(keeper.seen + player.seen + keeper_b.seen + player_b.seen)

    with zipfile.ZipFile(backup_folder(env, room) / "with-a-grant.zip") as archive:
        exported = b"".join(archive.read(name) for name in archive.namelist())
    written = [frames, server.log_text(), exported.decode("utf-8", "replace")]
    for token in auth.issued:
        assert not any(token in text for text in written)


async def test_a_grant_is_sealed_in_the_database(table, room):
    server, auth, _xai = table
    async with await Recording.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await sign_in(keeper, auth, "supergrok")
    stored = str(database_snapshot(server.env))
    assert "supergrok" in stored, "the grant is in the credential book"
    assert not any(token in stored for token in auth.issued)
