"""Pub/sub keeps nothing for a process that is not listening: a process whose room bus
connection dropped catches its members up from the database once it is back
(docs/operations.md, "Faults")."""

from __future__ import annotations

import redis

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve

RECOVERY = 15.0


def _kill_bus_connections(env, pid: int) -> int:
    name = f"{env.redis_prefix}-bus-{pid}"
    client = redis.Redis.from_url(env.redis_url)
    try:
        ids = [c["id"] for c in client.client_list() if c.get("name") == name]
        for connection_id in ids:
            client.client_kill_filter(_id=connection_id)
        return len(ids)
    finally:
        client.close()


async def test_a_line_said_while_a_process_was_off_the_bus_still_reaches_its_members(hosted_env, room):
    steady = start_serve(hosted_env, "--no-iroh")
    # Its bus connection's first six attempts to come back fail (about 2.5 s off the
    # bus, for certain), then the hub's first four attempts to rejoin.
    away = start_serve(hosted_env, "--no-iroh", TRPG_FAILPOINTS="bus.reconnect*6,bus.rejoin*4")
    try:
        async with await WsClient.connect(steady.ws_url) as ann, await WsClient.connect(away.ws_url) as bo:
            await ann.join(hosted_env.mint(room, "Ann"))
            await bo.join(hosted_env.mint(room, "Bo"))
            await settle(ann)
            await settle(bo)

            assert _kill_bus_connections(hosted_env, away.pid) >= 1
            await ann.say("Said while Bo's server was away.")
            await ann.expect("narrative", text="Said while Bo's server was away.")

            heard = await bo.expect("narrative", timeout=RECOVERY, text="Said while Bo's server was away.")
            assert heard["name"] == "Ann"
        away.wait_for_log("room bus reachable again", timeout=RECOVERY)
        assert "room bus connection lost" in away.log_text()
    finally:
        steady.stop()
        away.stop()
