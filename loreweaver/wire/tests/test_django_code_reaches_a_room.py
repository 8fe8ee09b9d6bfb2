"""Any Django code reaches a room through the channel layer: `group_send("room.<id>",
{"type": "room.notice", "text": ...})` shows the text to every member as a system line
(docs/architecture.md, "The room bus"). `manage.py notice` is such code, run in a
process of its own."""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import room_id_of, start_serve


@pytest.fixture(scope="module")
def hosted_server(hosted_env):
    process = start_serve(hosted_env, "--no-iroh")
    yield process
    process.stop()


async def test_a_notice_from_a_management_command_reaches_every_member_of_the_room(hosted_server, room):
    env = hosted_server.env
    async with (
        await WsClient.connect(hosted_server.ws_url) as keeper,
        await WsClient.connect(hosted_server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kim", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await settle(keeper)
        await settle(player)
        done = await asyncio.to_thread(
            env.manage, "notice", "--room", room, "The", "server", "restarts", "at", "noon."
        )
        assert done.returncode == 0, done.stderr
        assert "by 1 server process" in done.stdout
        for member in (keeper, player):
            shown = await member.expect("system", text="The server restarts at noon.")
            assert shown["level"] == "info"


async def test_group_send_from_a_django_shell_shows_a_system_line(hosted_server, room):
    env = hosted_server.env
    async with await WsClient.connect(hosted_server.ws_url) as player:
        await player.join(env.mint(room, "Pat"))
        await settle(player)
        code = (
            "from asgiref.sync import async_to_sync; from channels.layers import get_channel_layer; "
            f"async_to_sync(get_channel_layer().group_send)('room.{room_id_of(env, room)}', "
            "{'type': 'room.notice', 'text': 'Snacks are here.'})"
        )
        done = await asyncio.to_thread(env.manage, "shell", "-c", code)
        assert done.returncode == 0, done.stderr
        await player.expect("system", text="Snacks are here.")


async def test_a_notice_to_a_room_nobody_is_in_says_nobody_saw_it(hosted_server, room):
    env = hosted_server.env
    assert env.manage("mint_key", "--room", room, "--name", "Kim", "--role", "keeper").returncode == 0
    done = await asyncio.to_thread(env.manage, "notice", "--room", room, "Anyone?")
    assert done.returncode == 0, done.stderr
    assert "nobody saw it" in done.stdout


async def test_a_notice_to_a_room_that_does_not_exist_is_refused(hosted_server):
    done = await asyncio.to_thread(hosted_server.env.manage, "notice", "--room", "no-such-room", "Hello")
    assert done.returncode != 0
    assert "No room is named 'no-such-room'" in done.stderr


async def test_a_room_message_no_session_handles_is_logged_and_the_room_goes_on(hosted_server, room):
    env = hosted_server.env
    async with await WsClient.connect(hosted_server.ws_url) as player:
        await player.join(env.mint(room, "Pat"))
        await settle(player)
        group = f"'room.{room_id_of(env, room)}'"
        code = (
            "from asgiref.sync import async_to_sync; from channels.layers import get_channel_layer; "
            "send = async_to_sync(get_channel_layer().group_send); "
            f"send({group}, {{'type': 'room.from_a_newer_server'}}); "
            f"send({group}, {{'type': 'room.notice', 'text': 'Still here.'}})"
        )
        done = await asyncio.to_thread(env.manage, "shell", "-c", code)
        assert done.returncode == 0, done.stderr
        await player.expect("system", text="Still here.")  # the one after it is still handled
        hosted_server.wait_for_log("ignored a room message of type 'room.from_a_newer_server'")
