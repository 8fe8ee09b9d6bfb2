"""A server that has just started, with a burst of joins to many rooms at once,
welcomes every one and connects each room's members to each other (hosted: each room's
first join subscribes this process to the room on Redis; those subscriptions, made all
at once on a fresh connection, must not race each other). Ten cold starts on a fresh
Redis whose connections open slowly, as on a loaded host, with both cores busy while
the joins arrive: 60 joins across 10 rooms each (docs/operations.md, "A cold start
under a burst of joins")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys

import pytest

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import RedisServer, create_env, destroy_env, hosted_profile, start_serve
from loreweaver.testing.slow_link import SlowConnectRelay

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the room bus spans processes on Redis only")

STARTS, ROOMS, MEMBERS = 10, 10, 6
CONNECT_DELAY = 0.3  # seconds each new Redis connection takes to open


async def _burst(server, keys: dict[str, list[str]]) -> None:
    clients = [await WsClient.connect(server.ws_url) for _ in range(ROOMS * MEMBERS)]
    try:
        seats = [(room, key) for room, room_keys in keys.items() for key in room_keys]
        # The joins subscribe the process to the rooms: that is where the race was, so
        # that is when the cores are kept busy (a room subscribed wrongly stays deaf
        # afterwards, which the lines below find without the load).
        with _busy_cpu():
            joins = await asyncio.gather(
                *(client.join(key) for client, (_room, key) in zip(clients, seats, strict=True))
            )
        refused = [frames[0] for frames in joins if frames[0]["type"] != "welcome"]
        assert refused == [], refused
        for first in range(0, len(clients), MEMBERS):
            members = clients[first : first + MEMBERS]
            line = f"Is everyone in room {first // MEMBERS} here?"
            await members[-1].say(line)
            heard = await asyncio.gather(
                *(member.expect("narrative", text=line, timeout=15) for member in members)
            )
            assert len(heard) == MEMBERS
    finally:
        await asyncio.gather(*(client.close() for client in clients))


@contextlib.contextmanager
def _busy_cpu(processes: int = 2):
    """Both cores kept busy, as on a loaded host (where the race showed). At the lowest
    priority: they take whatever the machine leaves idle, never a test's share next to
    this one (the race still shows: without the bus's subscription lock the first cold
    start fails)."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=lambda: os.nice(19))
        for _ in range(processes)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.mark.timeout(600)
async def test_every_join_of_a_burst_at_a_cold_start_is_welcomed_and_heard(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    relay = SlowConnectRelay(("127.0.0.1", redis.port), CONNECT_DELAY)
    env = create_env(tmp_path / "table", hosted=True, redis_url=relay.url())
    keys = {
        f"cold-{room}": [env.mint(f"cold-{room}", f"Member {n}") for n in range(MEMBERS)]
        for room in range(ROOMS)
    }
    try:
        for _start in range(STARTS):
            server = start_serve(env, "--no-iroh")
            try:
                await _burst(server, keys)
            finally:
                server.stop()
            assert "Traceback" not in server.log_text()
    finally:
        destroy_env(env)
        relay.stop()
        redis.stop()
