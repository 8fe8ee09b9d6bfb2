"""On the embedded profile a line of play or a roll does not wait for the database
thread (docs/architecture.md, "A frame's way"): while another room's command is
held on that thread (the failpoint `commit.group@hold`), a roll is answered and a line
is stored, and the held command is answered once it is let go."""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server, hosted_profile, release_failpoint

held_thread = dedicated_server(TRPG_FAILPOINTS="commit.group@hold")


@pytest.mark.skipif(hosted_profile(), reason="a brief turn runs on the event loop on an SQLite file only")
async def test_a_roll_and_a_line_are_answered_while_another_rooms_command_holds_the_thread(held_thread, room):
    server = held_thread
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
    ):
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await player.join(server.env.mint(f"{room}-b", "Pat"))
        await keeper.say(".help")
        await asyncio.to_thread(server.wait_for_log, "failpoint commit.group holds", 30)
        try:
            await player.say(".r 1d6")
            assert (await player.expect("dice"))["actor"] == "Pat"
            await player.say("Pat opens the door.")
            await player.expect("narrative", text="Pat opens the door.")
        finally:
            release_failpoint(server, "commit.group")
        answer = await keeper.expect("narrative", speaker="system")
        assert ".r" in answer["text"], "the held command is answered once let go"
