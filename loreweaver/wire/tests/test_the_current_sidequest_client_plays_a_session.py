"""The current SideQuest web client (sidequest-ui ffa5a44) plays a whole session here with
`TRPG_SIDEQUEST__CLIENT=current`, sending exactly what it sends (docs/sidequest.md,
"The two client generations"): its lobby reads the genres with world objects, starts a
game with `POST /api/games`, reads `GET /api/games/<slug>` and `GET /api/sessions`;
it connects once by game slug with `last_seen_seq`, creates a character (index
choices, `edit` spelled `target_step`, confirm "1"), takes its seat, plays, gets a
picture the keeper shares, and comes back with the last `seq` it has seen (its page
cleared, so it is told the story again, numbered). A slug cannot be guessed from a
room's name."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request

import websockets

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.fake_llm import png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import (
    Browser,
    SideQuestClient,
    http_json,
    open_to_any_name,
    ws_url,
)
from rooms.models import SIDEQUEST_GENRES

lobby = dedicated_server(TRPG_SIDEQUEST__CLIENT="current")
starting = dedicated_server(TRPG_SIDEQUEST__CLIENT="current", TRPG_SIDEQUEST__PLAYERS_START_GAMES="1")


async def _open_room(server, room: str) -> WsClient:
    kay = await WsClient.connect(server.ws_url)
    await kay.join(server.env.mint(room, "Kay", "keeper"))
    open_to_any_name(server.env, room)
    return kay


CurrentClient = SideQuestClient  # its connect by game slug: `SideQuestClient.connect_by_slug`


async def test_the_current_client_starts_joins_creates_plays_and_comes_back(lobby, room):
    kay = await _open_room(lobby, room)
    try:
        status, genres = await asyncio.to_thread(http_json, lobby, "/api/genres")
        assert status == 200 and set(genres) <= set(SIDEQUEST_GENRES)
        world = next(w for w in genres["pulp_noir"]["worlds"] if w["slug"] == room)
        assert isinstance(world["inspirations"], list) and isinstance(world["axis_snapshot"], dict)
        assert genres["pulp_noir"]["name"] == "Pulp Noir"

        start = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer", "player_name": "Wren"}
        status, game = await asyncio.to_thread(http_json, lobby, "/api/games", {**start, "force_new": True})
        assert status == 200 and game["resumed"] is True, "players may not start games here: the open room"
        slug = game["slug"]
        assert re.fullmatch(rf"{re.escape(room)}-[0-9a-f]{{16}}", slug), slug
        status, metadata = await asyncio.to_thread(http_json, lobby, f"/api/games/{slug}")
        assert (status, metadata["genre_slug"], metadata["world_slug"]) == (200, "pulp_noir", room)
        assert (await asyncio.to_thread(http_json, lobby, f"/api/games/{room}-{'0' * 16}"))[0] == 404
        status, sessions = await asyncio.to_thread(http_json, lobby, "/api/sessions")
        assert room not in json.dumps(sessions), (
            "a keeper alone is no session to join: keepers are never listed"
        )

        browser = Browser()  # Wren's browser keeps the cookie her seat is bound to
        async with await CurrentClient.open(lobby, browser=browser) as wren:
            await wren.connect_by_slug(slug, "Wren", 0)
            assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
            status, sessions = await asyncio.to_thread(http_json, lobby, "/api/sessions")
            mine = next(s for s in sessions["sessions"] if s["world"] == room)
            assert mine["session_key"] == slug
            assert mine["players"] == [{"player_id": "Wren", "display_name": "Wren"}], "players only"
            await wren.expect("CHARACTER_CREATION", scene_index=0)
            for choice in ("Wren Hale", "2", "A ferry pilot."):
                await wren.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})
            await wren.expect("CHARACTER_CREATION", phase="confirmation")
            await wren.send("CHARACTER_CREATION", {"action": "edit", "target_step": 1})
            await wren.expect("CHARACTER_CREATION", scene_index=1)
            await wren.send("CHARACTER_CREATION", {"phase": "scene", "choice": "1"})
            confirmation = await wren.expect("CHARACTER_CREATION", phase="confirmation")
            assert list(confirmation["character_preview"].values())[1] == "she/her"
            await wren.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
            character = (await wren.expect("CHARACTER_CREATION", phase="complete"))["character"]
            await wren.send("PLAYER_SEAT", {"character_slot": character["name"]})
            assert (await wren.expect("SEAT_CONFIRMED"))["character_slot"] == "Wren Hale"

            await wren.send(
                "PLAYER_ACTION", {"action": "I look along the harbour for a boat.", "aside": False}
            )
            answer = await wren.until_end()
            seqs = [m["payload"]["seq"] for m in answer if m["type"] == "NARRATION"]
            assert seqs and all(isinstance(seq, int) and seq > 0 for seq in seqs)
            last_seen = max(seqs)

            picture = png(6, 6, (10, 120, 60))  # the keeper shares a picture: the gallery's
            await upload(kay, picture, "image/png", "map.png")
            image = await wren.expect("IMAGE")
            fetched = await asyncio.to_thread(lambda: urllib.request.urlopen(image["url"], timeout=10).read())
            assert fetched == picture

        await settle(kay)
        await kay.say("The fog rolls in off the water.")  # while Wren is away
        await kay.expect("narrative", speaker="player")

        # A reloaded page names its last seq, and clears its story when `ready` comes.
        async with await CurrentClient.open(lobby, browser=browser) as wren:
            await wren.connect_by_slug(slug, "Wren", last_seen)
            assert (await wren.expect("SESSION_EVENT"))["event"] == "ready"
            await wren.expect("PARTY_STATUS")  # after the story so far
            numbered = [m["payload"] for m in wren.seen if m["type"] == "NARRATION" and "seq" in m["payload"]]
            away = next(p for p in numbered if p["text"] == "Kay: The fog rolls in off the water.")
            assert away["seq"] > last_seen
            assert any(p["seq"] <= last_seen for p in numbered), "the story it had seen, told again"
            mine = next(m["payload"] for m in wren.seen if m["type"] == "PLAYER_ACTION")
            assert mine["action"] == "I look along the harbour for a boat." and mine["seq"] < away["seq"]
    finally:
        await kay.close()


async def test_a_guessed_slug_joins_nothing(lobby, room):
    kay = await _open_room(lobby, room)
    await kay.close()
    async with websockets.connect(ws_url(lobby)) as socket:
        guess = {"event": "connect", "game_slug": f"{room}-{'f' * 16}", "player_name": "Mallory"}
        await socket.send(json.dumps({"type": "SESSION_EVENT", "payload": guess, "player_id": "Mallory"}))
        refused = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert refused["type"] == "ERROR" and refused["payload"]["reconnect_required"] is False


async def test_where_players_may_start_games_a_new_game_is_a_room_of_its_own(starting, room):
    kay = await _open_room(starting, room)
    await kay.close()
    start = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "solo", "player_name": "Wren"}
    status, joined = await asyncio.to_thread(http_json, starting, "/api/games", start)
    assert status == 200 and joined["world_slug"] == room, "no force_new: the world's own room"
    status, game = await asyncio.to_thread(http_json, starting, "/api/games", {**start, "force_new": True})
    assert status == 201 and game["resumed"] is False and game["world_slug"].startswith(f"{room}-")
    assert game["slug"] != joined["slug"] and game["genre_slug"] == "pulp_noir"
    async with await CurrentClient.open(starting) as wren:
        await wren.connect_by_slug(game["slug"], "Wren", 0)
        assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
    status, refused = await asyncio.to_thread(
        http_json, starting, "/api/games", {**start, "world_slug": "nowhere"}
    )
    assert status == 404 and "nowhere" in refused["detail"]
