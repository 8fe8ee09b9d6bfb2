"""Strangers probe: what keyless visitors can make a server keep (docs/operations.md,
"Strangers"), with the shipped limits.

A room is opened to any name and players may start games. Then strangers, with no
cookie each time (as a script would), connect to `/ws` under fresh names and post
`{"force_new": true}` to `/api/games`: first from one address, then spread over many
loopback addresses. Prints what was asked and what the database holds afterwards
(guest seats, rooms), beside the same counts for the server's limits.

    python bench/strangers.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import _database, create_env, destroy_env, hosted_profile, start_serve
from loreweaver.wire.tests.sidequest_client import SideQuestClient, open_to_any_name

# The shipped defaults (the test harness relaxes the per-address ones for its own tests).
LIMITS = {
    "TRPG_GUESTS__PER_ROOM": "40",
    "TRPG_GUESTS__NEW_PER_ADDRESS": "5",
    "TRPG_SIDEQUEST__GAMES_PER_ADDRESS": "3",
    "TRPG_SIDEQUEST__PLAYER_GAMES": "50",
}


async def _guest(server, name: str, room: str, source: str) -> bool:
    """One cookieless connect as `name` from `source`: whether it was seated."""
    async with await SideQuestClient.open(server, source=source) as guest:
        await guest.connect(name, world=room)
        while True:
            answer = await guest.recv()
            if answer["type"] in ("SESSION_EVENT", "ERROR"):
                return answer["type"] == "SESSION_EVENT"


def _new_game(server, room: str, source: str) -> int:
    host, port = server.ws_url.removeprefix("ws://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    body = {"genre_slug": "pulp_noir", "world_slug": room, "mode": "multiplayer", "force_new": True}
    try:
        connection.request("POST", "/api/games", json.dumps(body), {"content-type": "application/json"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


async def _open_room(server, room: str) -> None:
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
    open_to_any_name(server.env, room)


def _count(env, sql: str) -> int:
    with _database(env) as (connection, mark):
        return connection.execute(sql.replace("?", mark), (True,)).fetchone()[0]


def _address(number: int, addresses: int) -> str:
    """The loopback address the `number`-th stranger comes from (Linux answers all of 127/8)."""
    spread = number % addresses
    return "127.0.0.1" if addresses == 1 else f"127.2.{spread // 250}.{spread % 250 + 1}"


async def _run(server, room: str, attempts: int, addresses: int) -> tuple[float, float]:
    started = time.monotonic()
    for number in range(attempts):
        await _guest(server, f"Stranger {number}", room, _address(number, addresses))
    guests_seconds = time.monotonic() - started
    started = time.monotonic()
    for number in range(attempts):
        await asyncio.to_thread(_new_game, server, room, _address(number, addresses))
    return guests_seconds, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    attempts = 60 if parser.parse_args().quick else 200
    print(f"strangers: {attempts} cookieless guests and {attempts} new games per round, shipped limits")
    for addresses in (1, attempts):
        with tempfile.TemporaryDirectory() as folder:
            env = create_env(Path(folder), hosted=hosted_profile())
            server = start_serve(env, "--no-iroh", TRPG_SIDEQUEST__PLAYERS_START_GAMES="1", **LIMITS)
            try:
                asyncio.run(_open_room(server, "harbour"))
                guests_seconds, games_seconds = asyncio.run(_run(server, "harbour", attempts, addresses))
                seats = _count(env, "SELECT count(*) FROM rooms_accesskey WHERE guest = ?")
                games = _count(env, "SELECT count(*) FROM rooms_room WHERE started_by_player = ?")
            finally:
                server.stop()
                destroy_env(env)
        where = "one address" if addresses == 1 else f"{addresses} addresses"
        print(
            f"  from {where:15s} guest seats kept {seats:4d} (of {attempts}, {guests_seconds:4.1f} s)"
            f"   games kept {games:4d} (of {attempts}, {games_seconds:4.1f} s)"
        )


if __name__ == "__main__":
    main()
