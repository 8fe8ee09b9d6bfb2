"""What keyless strangers can make is bounded (rooms/guests.py, docs/operations.md
"Strangers"): guest seats per room and new ones per address an hour, seats that expire
unused, games started from the SideQuest lobby per address and in all, and the lobby's
requests themselves; each refusal says why, in the server's language. Real sockets,
real HTTP, on both profiles."""

from __future__ import annotations

import asyncio
import datetime
import http.client
import json

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server, set_key_expiry
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, open_to_any_name
from loreweaver.wire.tests.test_a_guests_seat_is_bound_to_their_browser import _guest_seats

few_seats = dedicated_server(TRPG_GUESTS__PER_ROOM="3")
one_address = dedicated_server(TRPG_GUESTS__NEW_PER_ADDRESS="3", TRPG_LOCALE="zh")
lobby = dedicated_server(
    TRPG_SIDEQUEST__CLIENT="current",
    TRPG_SIDEQUEST__PLAYERS_START_GAMES="1",
    TRPG_SIDEQUEST__GAMES_PER_ADDRESS="2",
    TRPG_SIDEQUEST__PLAYER_GAMES="3",
    TRPG_RATE__REFILL_SECONDS="2",  # the lobby's own limit follows the input limits' settings
)


async def _open_room(server, room: str) -> None:
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
    open_to_any_name(server.env, room)


async def _answer(server, name: str, room: str, browser: Browser | None = None, source: str | None = None):
    """A browser's first answer to a keyless connect as `name` (its socket closed after)."""
    async with await SideQuestClient.open(server, browser=browser, source=source) as guest:
        await guest.connect(name, world=room)
        while True:
            answer = await guest.recv()
            if answer["type"] in ("SESSION_EVENT", "ERROR"):
                return answer


async def test_a_flood_of_fresh_names_takes_no_more_seats_than_the_room_holds(few_seats, room):
    await _open_room(few_seats, room)
    answers = [await _answer(few_seats, f"Stranger {n}", room) for n in range(30)]
    seated = [a for a in answers if a["type"] == "SESSION_EVENT"]
    refused = [a["payload"]["message"] for a in answers if a["type"] == "ERROR"]
    assert len(seated) == 3 and len(refused) == 27
    assert all("no free seat for guests (3 taken)" in told for told in refused), refused[0]
    assert len(_guest_seats(few_seats.env, room)) == 3
    async with await WsClient.connect(few_seats.ws_url) as sam:  # a key still gets in
        assert (await sam.join(few_seats.env.mint(room, "Sam")))[0]["type"] == "welcome"


async def test_a_seat_unused_past_its_days_expires_and_makes_room(few_seats, room):
    await _open_room(few_seats, room)
    browsers = [Browser() for _ in range(3)]
    for number, browser in enumerate(browsers):
        assert (await _answer(few_seats, f"Guest {number}", room, browser))["type"] == "SESSION_EVENT"
    assert (await _answer(few_seats, "Latecomer", room))["type"] == "ERROR"
    # Guest 0 stays away past the idle days: the seat runs out, its name and place are free.
    set_key_expiry(few_seats.env, room, "Guest 0", datetime.datetime.now(datetime.UTC))
    assert (await _answer(few_seats, "Guest 0", room))["payload"]["event"] == "connected"
    assert _guest_seats(few_seats.env, room) == ["Guest 0", "Guest 1", "Guest 2"]
    # A returning guest whose seat is still live needs no new place.
    assert (await _answer(few_seats, "Guest 1", room, browsers[1]))["type"] == "SESSION_EVENT"


async def test_an_address_makes_three_new_seats_an_hour_and_is_told_so_in_the_servers_language(
    one_address, room
):
    await _open_room(one_address, room)
    first = Browser()
    for number, browser in enumerate([first, Browser(), Browser()]):
        assert (await _answer(one_address, f"Guest {number}", room, browser))["type"] == "SESSION_EVENT"
    refused = await _answer(one_address, "Guest 3", room)
    assert refused["type"] == "ERROR" and "一小时" in refused["payload"]["message"], refused
    assert (await _answer(one_address, "Guest 0", room, first))["type"] == "SESSION_EVENT", "a seat it has"
    other = await _answer(one_address, "Guest 4", room, source="127.0.0.2")
    assert other["type"] == "SESSION_EVENT", "another address has an allowance of its own"
    assert len(_guest_seats(one_address.env, room)) == 4


def _post_game(server, body: dict, *, source: str = "127.0.0.1", language: str = "en") -> tuple[int, dict]:
    """`POST /api/games` from the loopback address `source`, as the client's lobby sends it."""
    host, port = server.ws_url.removeprefix("ws://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        headers = {"content-type": "application/json", "accept-language": language}
        connection.request("POST", "/api/games", json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _genre_worlds(server) -> list[str]:
    host, port = server.ws_url.removeprefix("ws://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", "/api/genres")
        listed = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    return [world["slug"] for genre in listed.values() for world in genre["worlds"]]


async def test_the_lobby_starts_two_games_an_hour_per_address_and_three_in_all(lobby, room):
    await _open_room(lobby, room)
    start = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer", "force_new": True}
    for _ in range(2):
        status, game = await asyncio.to_thread(_post_game, lobby, start)
        assert status == 201 and game["world_slug"].startswith(f"{room}-")
    status, refused = await asyncio.to_thread(_post_game, lobby, start)
    assert status == 429 and "2 games this hour" in refused["detail"]
    status, refused = await asyncio.to_thread(_post_game, lobby, start, language="zh-CN,zh;q=0.9")
    assert status == 429 and "小时" in refused["detail"], refused

    assert (await asyncio.to_thread(_post_game, lobby, start, source="127.0.0.2"))[0] == 201
    status, refused = await asyncio.to_thread(_post_game, lobby, start, source="127.0.0.3")
    assert status == 429 and "as many games as players may start (3)" in refused["detail"]
    assert len(await asyncio.to_thread(_genre_worlds, lobby)) == 4, "the operator's room and three games"

    joining = {**start, "force_new": False}  # joining the world's room is still answered
    assert (await asyncio.to_thread(_post_game, lobby, joining, source="127.0.0.4"))[0] == 200


async def test_the_lobby_answers_a_burst_of_requests_from_one_address_with_429(lobby, room):
    await _open_room(lobby, room)
    joining = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer"}
    statuses = [
        (await asyncio.to_thread(_post_game, lobby, joining, source="127.0.0.9"))[0] for _ in range(14)
    ]
    assert statuses[:10] == [200] * 10 and 429 in statuses[10:], statuses
    assert (await asyncio.to_thread(_post_game, lobby, joining, source="127.0.0.10"))[0] == 200
