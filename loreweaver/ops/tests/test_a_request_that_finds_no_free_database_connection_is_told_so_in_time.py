"""Hosted, a process holds at most `TRPG_DB__POOL_SIZE` Postgres connections; a request
that finds none free within `TRPG_DB__POOL_TIMEOUT` seconds is answered 503 with
Retry-After at once, instead of waiting as long as Postgres is stuck, and the table
plays on once the connections are free again (docs/operations.md, "Database
connections")."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request

import psycopg
import pytest

from loreweaver.ops.http_threads import BUSY
from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import gauge, scrape
from loreweaver.testing.servers import POSTGRES_ADMIN_URL, ServerEnv, dedicated_server, hosted_profile

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the pool is the hosted profile's")

# Two connections: the table's database thread and a readiness check, each held up
# below by a lock the test takes, leave none for the request.
crowded_server = dedicated_server(TRPG_DB__POOL_SIZE="2", TRPG_DB__POOL_TIMEOUT="0.5")


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as answer:
        return answer.code, dict(answer.headers), answer.read()


def _waiting_on_locks(env: ServerEnv) -> int:
    """The server's connections waiting for a lock (the test's own holds them)."""
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        return admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
            (env.database,),
        ).fetchone()[0]


async def test_a_request_with_no_free_connection_is_answered_503_in_time(crowded_server, room):
    env = crowded_server.env
    base = crowded_server.ws_url.replace("ws://", "http://").rstrip("/")
    async with await WsClient.connect(crowded_server.ws_url) as keeper:
        await keeper.join(env.mint(room, "Kim", "keeper"))
        await keeper.say(".bot off")  # the keeper narrates: a line is stored, nothing more
        await keeper.say("The lamp gutters.")
        await keeper.expect("narrative", text="The lamp gutters.")

        with psycopg.connect(env.database_url) as holder:
            # The story and the backup record locked: the line below and a readiness
            # check each wait on the lock holding a connection of the pool.
            holder.execute("LOCK TABLE rooms_transcriptentry, rooms_backuprun IN ACCESS EXCLUSIVE MODE")
            await keeper.say("The door creaks open.")
            deadline = time.monotonic() + 20
            while await asyncio.to_thread(_waiting_on_locks, env) < 2:
                assert time.monotonic() < deadline, "the pool's two connections never got stuck"
                await asyncio.to_thread(_get, f"{base}/readyz")  # starts a check, at most once a second
                await asyncio.sleep(0.2)  # a poll, bounded by the deadline

            asked = time.monotonic()
            status, headers, body = await asyncio.to_thread(_get, f"{base}/api/genres")
            answered = time.monotonic() - asked
            assert (status, headers.get("Retry-After"), json.loads(body)) == (503, "1", {"detail": BUSY})
            assert answered < 5  # the pool's timeout (0.5 s), not as long as the lock is held
            holder.rollback()

        await keeper.expect("narrative", text="The door creaks open.")  # the table plays on
    status, _headers, _body = await asyncio.to_thread(_get, f"{base}/api/genres")
    assert status == 200
    metrics = await asyncio.to_thread(scrape, crowded_server)
    assert gauge(metrics, "loreweaver_db_connection_timeouts_total") >= 1
    log = crowded_server.log_text()
    assert "GET /api/genres: no database connection was free within 0.5 s (TRPG_DB__POOL_SIZE=2)" in log
    assert "Internal Server Error" not in log
