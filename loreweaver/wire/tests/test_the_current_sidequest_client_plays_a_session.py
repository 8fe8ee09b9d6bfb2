"""The current SideQuest web client (sidequest-ui ffa5a44) plays a whole session here with
`TRPG_SIDEQUEST__CLIENT=current`, sending exactly what it sends (docs/sidequest.md,
"The two client generations"): its lobby reads the genres with world objects, starts a
game with `POST /api/games`, reads `GET /api/games/<slug>` and `GET /api/sessions`;
it connects once by game slug with `last_seen_seq`, creates a character (index
choices, `edit` spelled `target_step`, confirm "1"), takes its seat, plays, gets a
picture the keeper shares, and comes back with the last `seq` it has seen. A slug
cannot be guessed from a room's name."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import websockets

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.fake_llm import png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.sidequest_table import unseen
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, open_to_any_name, ws_url
from rooms.models import SIDEQUEST_GENRES

lobby = dedicated_server(TRPG_SIDEQUEST__CLIENT="current")
starting = dedicated_server(TRPG_SIDEQUEST__CLIENT="current", TRPG_SIDEQUEST__PLAYERS_START_GAMES="1")


def _http(server, path: str, body: dict | None = None) -> tuple[int, dict]:
    """(status, JSON) of a GET, or of a JSON POST as the client's lobby sends it."""
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + path
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


async def _open_room(server, room: str) -> WsClient:
    kay = await WsClient.connect(server.ws_url)
    await kay.join(server.env.mint(room, "Kay", "keeper"))
    open_to_any_name(server.env, room)
    return kay


class CurrentClient(SideQuestClient):
    """What sidequest-ui ffa5a44 puts on the wire."""

    async def connect_by_slug(self, slug: str, name: str, last_seen_seq: int | None) -> None:
        payload: dict = {"event": "connect", "game_slug": slug, "player_name": name}
        if last_seen_seq is not None:  # only the first connect of a page load carries it
            payload["last_seen_seq"] = last_seen_seq
        await self.send_raw(json.dumps({"type": "SESSION_EVENT", "payload": payload, "player_id": name}))


async def test_the_current_client_starts_joins_creates_plays_and_comes_back(lobby, room):
    kay = await _open_room(lobby, room)
    try:
        status, genres = await asyncio.to_thread(_http, lobby, "/api/genres")
        assert status == 200 and set(genres) <= set(SIDEQUEST_GENRES)
        world = next(w for w in genres["pulp_noir"]["worlds"] if w["slug"] == room)
        assert isinstance(world["inspirations"], list) and isinstance(world["axis_snapshot"], dict)
        assert genres["pulp_noir"]["name"] == "Pulp Noir"

        start = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer", "player_name": "Wren"}
        status, game = await asyncio.to_thread(_http, lobby, "/api/games", {**start, "force_new": True})
        assert status == 200 and game["resumed"] is True, "players may not start games here: the open room"
        slug = game["slug"]
        assert re.fullmatch(rf"{re.escape(room)}-[0-9a-f]{{16}}", slug), slug
        status, metadata = await asyncio.to_thread(_http, lobby, f"/api/games/{slug}")
        assert (status, metadata["genre_slug"], metadata["world_slug"]) == (200, "pulp_noir", room)
        assert (await asyncio.to_thread(_http, lobby, f"/api/games/{room}-{'0' * 16}"))[0] == 404
        status, sessions = await asyncio.to_thread(_http, lobby, "/api/sessions")
        assert room not in json.dumps(sessions), (
            "a keeper alone is no session to join: keepers are never listed"
        )

        browser = Browser()  # Wren's browser keeps the cookie her seat is bound to
        async with await CurrentClient.open(lobby, browser=browser) as wren:
            await wren.connect_by_slug(slug, "Wren", 0)
            assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
            status, sessions = await asyncio.to_thread(_http, lobby, "/api/sessions")
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

        async with await CurrentClient.open(lobby, browser=browser) as wren:  # a reloaded page: its last seq
            await wren.connect_by_slug(slug, "Wren", last_seen)
            assert (await wren.expect("SESSION_EVENT"))["event"] == "ready"
            await wren.expect("PARTY_STATUS")  # after the story so far
            replayed = [m["payload"] for m in wren.seen if m["type"] == "NARRATION"]
            away = next(p for p in replayed if p["text"] == "Kay: The fog rolls in off the water.")
            assert away["seq"] > last_seen
            assert all(p["seq"] > last_seen for p in replayed), "only what the client has not seen"

        async with await CurrentClient.open(
            lobby, browser=browser
        ) as wren:  # nothing new: the last lines again
            await wren.connect_by_slug(slug, "Wren", 10**9)
            await wren.expect("SESSION_EVENT", event="ready")
            await wren.expect("PARTY_STATUS")  # after the story so far
            numbered = [m["payload"] for m in wren.seen if m["type"] == "NARRATION" and "seq" in m["payload"]]
            assert 1 <= len(numbered) <= 5
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
    status, joined = await asyncio.to_thread(_http, starting, "/api/games", start)
    assert status == 200 and joined["world_slug"] == room, "no force_new: the world's own room"
    status, game = await asyncio.to_thread(_http, starting, "/api/games", {**start, "force_new": True})
    assert status == 201 and game["resumed"] is False and game["world_slug"].startswith(f"{room}-")
    assert game["slug"] != joined["slug"] and game["genre_slug"] == "pulp_noir"
    async with await CurrentClient.open(starting) as wren:
        await wren.connect_by_slug(game["slug"], "Wren", 0)
        assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
    status, refused = await asyncio.to_thread(
        _http, starting, "/api/games", {**start, "world_slug": "nowhere"}
    )
    assert status == 404 and "nowhere" in refused["detail"]


def test_what_a_reconnect_is_told_follows_the_last_line_it_saw():
    def line(number: int) -> dict:
        return {"type": "narrative", "id": f"f{number}", "speaker": "kp", "text": f"line {number}"}

    roll = {"type": "dice", "actor": "Wren", "expr": "1d20", "total": 7}
    held = [line(1), roll, line(2), *[line(n) for n in range(3, 9)], roll]  # the last: a command's roll
    seqs = {f"f{n}": n for n in range(1, 9)}
    assert unseen(held, seqs, 0) == held, "a first connect: the whole replay"
    assert unseen(held, seqs, 1)[:2] == [roll, line(2)], "a roll stays with its line"
    assert unseen(held, seqs, 7) == [line(8), roll]
    # Seen everything (a reloaded page cleared its story): the last five lines, and what follows.
    assert unseen(held, seqs, 8) == [line(n) for n in range(4, 9)] + [roll]
