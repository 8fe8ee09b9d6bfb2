"""A structured round's deadline is kept where every server process sees it: when the
process where the round opened is killed, another one closes the round on time, and
its members see the Keeper answer it (docs/operations.md, "Faults").

Like the other hosted faults, this needs Postgres and Redis whatever profile the run
is on.
"""

from __future__ import annotations

import time

import psycopg

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import create_env, destroy_env, start_serve
from loreweaver.wire.tests.test_hosted_faults import Recorder

ROUND_SECONDS = 5  # longer than a killed process takes to be seen dead (its turns freed)
LATE = 2.0  # a round closes at most this long after its time is up


def _speakers_after(env, room: str, text: str) -> list[str]:
    """Who spoke in the room's story after the line `text`, in order."""
    with psycopg.connect(env.database_url) as connection:
        rows = connection.execute(
            "SELECT t.speaker FROM rooms_transcriptentry t JOIN rooms_room r ON r.id = t.room_id "
            "WHERE r.name = %s AND t.id > (SELECT max(id) FROM rooms_transcriptentry WHERE text = %s) "
            "ORDER BY t.id",
            (room, text),
        ).fetchall()
    return [row[0] for row in rows]


async def test_a_round_closes_on_time_after_the_process_that_opened_it_was_killed(tmp_path, room):
    env = create_env(tmp_path / "table", hosted=True)
    opener, survivor = start_serve(env, "--no-iroh"), start_serve(env, "--no-iroh")
    members: list[Recorder] = []
    try:
        for name, role, server in (
            ("Kay", "keeper", survivor),
            ("Bo", "player", survivor),
            ("Ann", "player", opener),
        ):
            client = await WsClient.connect(server.ws_url)
            await client.join(env.mint(room, name, role))
            members.append(Recorder(client))
        kay, bo, ann = members
        await kay.client.say(f".turns structured {ROUND_SECONDS}")
        await kay.first(lambda f: f["type"] == "narrative" and "Structured turns" in f["text"])

        since = len(bo.frames)
        line = "I pry the crate open."
        assert await ann.say(line) == "ok"  # the round opens on `opener`
        opened = time.monotonic()
        waiting = await bo.first(lambda f: f["type"] == "system" and "Bo" in f["text"], since=since)
        assert "Ann" in waiting["text"], "the round waits for Bo after Ann's line"
        opener.kill9()

        # The Keeper answers the round from the surviving process when its time is up.
        busy = await bo.first(
            lambda f: f["type"] == "turn_status" and f["status"] == "busy" and "activity" not in f,
            since=since,
            timeout=ROUND_SECONDS + LATE + 5,
        )
        closed_after = time.monotonic() - opened
        assert busy["actor"] == "Ann", "the round is Ann's turn"
        assert ROUND_SECONDS - 0.5 <= closed_after < ROUND_SECONDS + LATE, (
            f"closed after {closed_after:.1f} s"
        )
        after_busy = bo.frames.index(busy)
        answer = await bo.first(lambda f: f["type"] == "narrative" and f["speaker"] == "kp", since=after_busy)
        assert answer["text"]
        await bo.first(lambda f: f["type"] == "turn_status" and f["status"] == "idle", since=after_busy)
        await kay.first(lambda f: f["type"] == "narrative" and f.get("id") == answer["id"], since=since)
        assert _speakers_after(env, room, line) == ["kp"], "one answer to the round, nothing else"
    finally:
        for member in members:
            await member.close()
        survivor.stop()
        destroy_env(env)
