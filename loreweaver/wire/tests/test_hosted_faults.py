"""A hosted table survives its dependencies failing: Redis restarted (losing everything it
held), Postgres connections killed, a server process killed mid-turn. No acknowledged
line is lost, no line is both stored and reported failed, and the room answers within
five seconds of the dependency's return, without anyone reconnecting
(docs/operations.md, "Faults").

These need Postgres and Redis whatever profile the run is on; a Redis of the test's
own (on another port) is the one restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

import psycopg
import pytest

from loreweaver.testing.clients import Client, Closed, IrohClient, WsClient
from loreweaver.testing.fake_llm import FakeLlm, Text, Wait
from loreweaver.testing.servers import (
    POSTGRES_ADMIN_URL,
    RedisServer,
    create_env,
    destroy_env,
    start_iroh_sidecar,
    start_serve,
)
from loreweaver.wire.coordination import TURN_CLAIM_GRACE
from loreweaver.wire.stores import TURN_LEASE_TTL

RECOVERY = 5.0  # seconds within which the room must answer again
# A dead process's turn lets the room go once its heartbeat lapses (PROCESS_TTL, 2 s),
# well before a lease or a claim's grace would (TURN_LEASE_TTL 15 s, TURN_CLAIM_GRACE
# 10 s): this bound tells the two apart with room for a loaded machine (5.3 s seen in CI
# beside browser tests).
LET_GO = min(TURN_LEASE_TTL, TURN_CLAIM_GRACE) - 2


def _stored_lines(env, room: str) -> list[str]:
    with psycopg.connect(env.database_url) as connection:
        rows = connection.execute(
            "SELECT t.text FROM rooms_transcriptentry t JOIN rooms_room r ON r.id = t.room_id "
            "WHERE r.name = %s ORDER BY t.id",
            (room,),
        ).fetchall()
    return [row[0] for row in rows]


class Recorder:
    """Everything a client receives, read in the background, so a test can send and
    later ask what arrived (a fault may deliver things late, or out of turn)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.frames: list[dict] = []
        self._arrived = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                frame = await self.client.recv(timeout=3600)
            except (Closed, TimeoutError):
                return
            self.frames.append(frame)
            self._arrived.set()

    async def first(self, wanted: Callable[[dict], bool], *, since: int = 0, timeout: float = 10) -> dict:
        """The first frame from index `since` on that is `wanted`, waiting up to `timeout`."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for frame in self.frames[since:]:
                if wanted(frame):
                    return frame
            since = len(self.frames)
            self._arrived.clear()
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError("not arrived")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    async def say(self, text: str, timeout: float = 10) -> str:
        """Send a line; "ok" once its echo arrives, or the error code it got instead."""
        since = len(self.frames)
        await self.client.say(text)
        frame = await self.first(
            lambda f: (f["type"] == "narrative" and f.get("text") == text) or f["type"] == "error",
            since=since,
            timeout=timeout,
        )
        return "ok" if frame["type"] == "narrative" else frame["code"]

    def lines(self) -> set[str]:
        """The narrative lines received so far."""
        return {f.get("text", "") for f in self.frames if f["type"] == "narrative"}

    async def hears(self, texts: set[str], timeout: float) -> set[str]:
        """Which of `texts` have arrived once all have, or once `timeout` passed."""
        with contextlib.suppress(TimeoutError):
            await self.first(lambda _f: texts <= self.lines(), timeout=timeout)
        return texts & self.lines()

    async def close(self) -> None:
        self._reader.cancel()
        await self.client.close()


@pytest.fixture
def own_redis(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    yield redis
    redis.stop()


async def test_a_redis_restart_loses_no_line_and_the_room_talks_again(tmp_path, own_redis, room):
    env = create_env(tmp_path / "table", hosted=True, redis_url=own_redis.url)
    web, sidecar = start_serve(env), start_iroh_sidecar(env)
    names = ["Ann", "Bo", "Cy"]
    members: list[Recorder] = []
    try:
        for name, client in zip(
            names,
            [
                await WsClient.connect(web.ws_url),
                await IrohClient.connect(web.ticket),
                await IrohClient.connect(sidecar.ticket),
            ],
            strict=True,
        ):
            await client.join(env.mint(room, name))
            members.append(Recorder(client))
        assert await members[0].say("before the outage") == "ok"

        own_redis.stop()
        outcomes: dict[str, str] = {}
        for n in range(3):
            for member, name in zip(members, names, strict=True):
                text = f"{name} during the outage {n}"
                outcomes[text] = await member.say(text)
        assert set(outcomes.values()) <= {"ok", "server_error"}
        latecomer = await WsClient.connect(web.ws_url)  # a join while the store is down
        await latecomer.send({"type": "join", "key": env.mint(room, "Late")})
        refused = await latecomer.wait_closed()
        await latecomer.close()
        assert [(f["type"], f.get("code")) for f in refused if f["type"] == "error"] == [
            ("error", "server_error")
        ]

        own_redis.start()
        returned = time.monotonic()
        after = {f"{name} after the outage" for name in names}
        for member, text in zip(members, sorted(after), strict=True):
            while await member.say(text) != "ok":  # refused only while the room recovers
                assert time.monotonic() - returned < RECOVERY
                await asyncio.sleep(0.2)
        stored = set(_stored_lines(env, room))
        acknowledged = {text for text, outcome in outcomes.items() if outcome == "ok"}
        failed = {text for text, outcome in outcomes.items() if outcome != "ok"}
        assert acknowledged <= stored, "no acknowledged line is lost"
        assert not failed & stored, "no line is both stored and reported failed"
        # Every member hears every stored line: the ones after the return live, any
        # committed during the outage by catching up.
        expected = (stored & set(outcomes)) | after
        for member in members:
            assert await member.hears(expected, timeout=RECOVERY) == expected
        online = await members[0].first(
            lambda f: f["type"] == "presence" and f["online"] == 3, timeout=RECOVERY
        )
        assert sorted(p["name"] for p in online["players"]) == names
    finally:
        for member in members:
            await member.close()
        web.stop()
        sidecar.stop()
        own_redis.stop()
        destroy_env(env)


@pytest.fixture(scope="module")
def two_webs(hosted_env):
    first, second = start_serve(hosted_env, "--no-iroh"), start_serve(hosted_env, "--no-iroh")
    yield first, second
    first.stop()
    second.stop()


def _kill_database_connections(env) -> int:
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
        killed = connection.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (env.database,),
        ).fetchone()[0]
    return killed


async def test_killed_database_connections_cost_no_line(two_webs, room):
    first, second = two_webs
    env = first.env
    ann, bo = await WsClient.connect(first.ws_url), await WsClient.connect(second.ws_url)
    await ann.join(env.mint(room, "Ann"))
    await bo.join(env.mint(room, "Bo"))
    ann, bo = Recorder(ann), Recorder(bo)
    try:
        for n in range(3):
            assert _kill_database_connections(env) >= 1
            assert await ann.say(f"Ann after kill {n}") == "ok"
            assert await bo.say(f"Bo after kill {n}") == "ok"
            since = len(bo.frames)
            await bo.client.say(".r 1d6")
            assert (await bo.first(lambda f: f["type"] == "dice", since=since))["total"] in range(1, 7)
        said = {f"{name} after kill {n}" for name in ("Ann", "Bo") for n in range(3)}
        assert await ann.hears(said, timeout=RECOVERY) == said
        assert await bo.hears(said, timeout=RECOVERY) == said
        assert said <= set(_stored_lines(env, room))
    except (AssertionError, TimeoutError):
        # Shown with the failure (pytest prints a failed test's output): it timed out
        # in CI on the first line after the first kill, while a join still read the
        # database after its last frame (now it reads first: test_a_join_is_done_with_
        # the_database_before_its_last_frame.py).
        print("second server:", second.log_text()[-3000:], "\nfirst server:", first.log_text()[-1500:])
        print("Bo's last frames:", bo.frames[-6:])
        raise
    finally:
        await ann.close()
        await bo.close()


@pytest.fixture
def slow_keeper():
    """A scripted model whose first reply waits until the test lets it go; quick
    replies after it."""
    fake = FakeLlm().start()
    release = threading.Event()
    fake.script(Text("The door creaks"), Wait(release), Text(" open."))
    for _ in range(8):
        fake.script(Text("The Keeper nods."))
    yield fake
    release.set()
    fake.stop()


async def test_a_server_killed_mid_turn_leaves_the_room_playable(tmp_path, slow_keeper, room):
    env = create_env(tmp_path / "table", hosted=True)
    model = {
        "TRPG_LLM__PROVIDER": "openai",
        "TRPG_LLM__BASE_URL": slow_keeper.url,
        "TRPG_LLM__API_KEY": "sk-test-scripted-0000",
        "TRPG_LLM__CHAT_MODEL": "scripted-keeper",
    }
    doomed, survivor = start_serve(env, "--no-iroh", **model), start_serve(env, "--no-iroh", **model)
    restarted = None
    members: list[Recorder] = []
    try:
        for name, server in (("Ann", doomed), ("Bo", survivor), ("Cy", survivor)):
            client = await WsClient.connect(server.ws_url)
            await client.join(env.mint(room, name))
            members.append(Recorder(client))
        ann, bo, cy = members
        assert await ann.say("I open the door.") == "ok"  # acknowledged
        await ann.first(lambda f: f["type"] == "narrative_delta")  # the Keeper's turn runs on `doomed`
        since = len(bo.frames)
        await bo.client.say(".r 1d6")
        queued = await bo.first(lambda f: f["type"] == "system", since=since)
        assert queued["level"] == "info", "queued behind the running turn"

        doomed.kill9()
        killed = time.monotonic()
        roll = await bo.first(lambda f: f["type"] == "dice", since=since, timeout=LET_GO + 5)
        assert roll["total"] in range(1, 7)
        assert time.monotonic() - killed < LET_GO, "the dead process's turn does not hold the room"
        # The cut-off turn is closed for the table: idle, and a word why.
        await bo.first(lambda f: f["type"] == "turn_status" and f["status"] == "idle", since=since)
        cut = await bo.first(lambda f: f["type"] == "system" and f["level"] == "warn", since=since)
        assert "Ann" in cut["text"]
        assert await cy.say("Cy still plays") == "ok"
        gone = await cy.first(lambda f: f["type"] == "presence" and f["online"] == 2, timeout=RECOVERY)
        assert sorted(p["name"] for p in gone["players"]) == ["Bo", "Cy"]

        restarted = start_serve(env, "--no-iroh", **model)
        dee = await WsClient.connect(restarted.ws_url)
        joined = await dee.join(env.mint(room, "Dee"))
        dee = Recorder(dee)
        members.append(dee)
        assert "I open the door." in [f.get("text") for f in joined if f["type"] == "narrative"]
        present = next(f for f in reversed(joined) if f["type"] == "presence")
        if present["online"] != 3:
            present = await dee.first(
                lambda f: f["type"] == "presence" and f["online"] == 3, timeout=RECOVERY
            )
        assert sorted(p["name"] for p in present["players"]) == ["Bo", "Cy", "Dee"], "no ghost of Ann"
        assert await dee.say("Dee arrives.") == "ok"
        assert await bo.hears({"Dee arrives."}, timeout=RECOVERY) == {"Dee arrives."}
    finally:
        for member in members:
            await member.close()
        survivor.stop()
        if restarted is not None:
            restarted.stop()
        destroy_env(env)
