"""A SideQuest player in a room whose story has not begun is told its opening
(docs/sidequest.md, "Joining"): the client waits ("the narrator gathers their
thoughts") until a `NARRATION_END`, so the first player of a room, after making a
character or at a `ready`, gets an opening `NARRATION` (the module's title and what
players may know, never its truth) and `NARRATION_END` before typing anything; once a
line of play was said, a joiner is told the story instead. The current client's lobby
(`GET /api/sessions`) reports the turns the room has played, and never a keeper."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import WsClient, settle, system_answer
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, http_json, open_to_any_name

lobby = dedicated_server(TRPG_SIDEQUEST__CLIENT="current")


def _narration(messages: list[dict]) -> str:
    return "\n".join(m["payload"]["text"] for m in messages if m["type"] == "NARRATION")


async def test_the_first_guest_is_told_the_opening_once_their_character_is_made(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        open_to_any_name(server.env, room)
        async with await SideQuestClient.open(server) as wren:
            await wren.connect("Wren", world=room)
            await wren.make_character("Wren Hale")
            opening = _narration(await wren.until_end())  # before Wren types anything
            assert "has not begun" in opening and "/help" in opening, opening


async def test_a_ready_player_is_told_the_modules_opening_and_a_later_one_the_story(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await system_answer(
            kay, ".module set The Drowned Bell | The bell has rung for three nights. | Silas rang it"
        )
        pat_key = server.env.mint(room, "Pat")
        async with await WsClient.connect(server.ws_url) as pat:
            await pat.join(pat_key)
            await system_answer(pat, ".coc Pat Quill")
        async with await SideQuestClient.open(server, pat_key) as pat:
            await pat.connect("Pat", pat_key)
            await pat.expect("SESSION_EVENT", event="ready")
            opening = _narration(await pat.until_end())
            assert "The Drowned Bell" in opening and "three nights" in opening, opening
            assert "Silas rang it" not in opening, "never the module's truth"
            await pat.act("I listen for the bell.")
            await pat.until_end()
        await settle(kay)
        bob_key = server.env.mint(room, "Bob")
        async with await WsClient.connect(server.ws_url) as bob:
            await bob.join(bob_key)
            await system_answer(bob, ".coc Bob Marsh")
        async with await SideQuestClient.open(server, bob_key) as bob:
            await bob.connect("Bob", bob_key)
            await bob.expect("SESSION_EVENT", event="ready")
            await bob.act("I look around.")
            told = await bob.until_end()
            assert "rung for three nights" not in _narration(told), "the story has begun: no opening"
            assert "I listen for the bell." in _narration(told), "the story so far instead"


async def test_the_lobby_counts_the_turns_played_and_never_lists_a_keeper(lobby, room):
    kay_key = lobby.env.mint(room, "Kay", "keeper")
    async with await WsClient.connect(lobby.ws_url) as kay:
        await kay.join(kay_key)
        open_to_any_name(lobby.env, room)
        _status, game = await asyncio.to_thread(
            http_json,
            lobby,
            "/api/games",
            {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer", "player_name": "Wren"},
        )
        async with (
            await SideQuestClient.open(lobby, browser=Browser()) as wren,
            await SideQuestClient.open(lobby, kay_key) as kay_there,
        ):
            await kay_there.connect("Kay", kay_key)  # the keeper at the SideQuest client too
            await wren.connect_by_slug(game["slug"], "Wren", 0)
            await wren.make_character("Wren Hale")
            await wren.until_end()  # the opening
            for line in ("I look along the harbour.", "I call out to the boats."):
                await wren.act(line)
                await wren.until_end()
            _status, sessions = await asyncio.to_thread(http_json, lobby, "/api/sessions")
            mine = next(s for s in sessions["sessions"] if s["world"] == room)
            assert mine["players"] == [{"player_id": "Wren", "display_name": "Wren"}], "players only"
            assert mine["current_turn"] == 2, mine
