"""Every HTTP request gives its database connection back when it ends, on both profiles
(docs/operations.md, "Database connections"): after a load of 1,000 requests, half one
after another and half fifty at a time, the server holds no more connections than it
did before; hosted, never more than its pool's size (`TRPG_DB__POOL_SIZE`) during the
load, and the Iroh sidecar's health port gives its connections back too. Each request
reads the database, a 404 included. Embedded, each of the few threads that serve
requests keeps its SQLite connection: a first burst opens them all."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import psutil
import psycopg

from loreweaver.testing.metrics import gauge, scrape
from loreweaver.testing.servers import (
    POSTGRES_ADMIN_URL,
    ServerEnv,
    ServerProcess,
    dedicated_server,
    start_iroh_sidecar,
)

REQUESTS = 1000
AT_ONCE = 50
POOL_SIZE = 5
SETTLE_SECONDS = 30.0  # pooled connections beyond the first close one per TRPG_DB__POOL_IDLE
# The pool's size kept small, so fifty requests at once have to share it; and connections
# above the first closed after half a second unused, so the test sees the pool shrink.
POOL = {"TRPG_DB__POOL_SIZE": str(POOL_SIZE), "TRPG_DB__POOL_IDLE": "0.5"}

loaded_server = dedicated_server(**POOL)


def _status(base: str, method: str, path: str) -> int:
    body = None
    headers = {}
    if method == "POST":  # a world nobody opened: 404, after looking for it
        body = json.dumps({"genre_slug": "pulp_noir", "world_slug": "nowhere", "mode": "solo"}).encode()
        headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(base + path, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as answer:
        return answer.code


WEB_REQUESTS = [
    ("GET", "/api/genres"),
    ("GET", "/api/sessions"),
    ("POST", "/api/games"),
    ("GET", "/metrics"),
    ("GET", "/"),
    ("GET", "/readyz"),
]
SIDECAR_REQUESTS = [("GET", "/metrics"), ("GET", "/readyz")]


def _load(base: str, requests: list[tuple[str, str]], count: int) -> Counter:
    """`count` requests cycling through `requests`: half one after another, half
    `AT_ONCE` at a time; how many of each request got each status."""

    def send(asked: tuple[str, str]) -> tuple[str, str, int]:
        return (*asked, _status(base, *asked))

    plan = [requests[n % len(requests)] for n in range(count)]
    half = count // 2
    answers = Counter(send(asked) for asked in plan[:half])
    with ThreadPoolExecutor(AT_ONCE) as senders:
        answers.update(senders.map(send, plan[half:]))
    return answers


def _postgres_connections(env: ServerEnv) -> int:
    """The connections to the environment's database (the test's own is to another)."""
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        return admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (env.database,)
        ).fetchone()[0]


def _sqlite_handles(server: ServerProcess) -> int:
    """The server process's open files on its SQLite database (one per connection)."""
    database = (server.env.data_dir / "db.sqlite3").resolve()
    return sum(1 for opened in psutil.Process(server.pid).open_files() if Path(opened.path) == database)


@contextmanager
def _highest(count: Callable[[], int]) -> Iterator[list[int]]:
    """Sample `count` every 20 ms while the block runs; the highest value seen."""
    highest, done = [count()], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            highest[0] = max(highest[0], count())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield highest
    finally:
        done.set()
        sampler.join(5)


def _settles(count: Callable[[], int], at_most: int) -> int:
    """Wait until `count()` is at most `at_most` (or the time is up); its last value."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while (value := count()) > at_most and time.monotonic() < deadline:
        time.sleep(0.1)  # a poll of the count, bounded by the deadline
    return value


def test_a_thousand_requests_leave_the_servers_connections_where_they_were(loaded_server):
    base = loaded_server.ws_url.replace("ws://", "http://").rstrip("/")
    env = loaded_server.env
    held = partial(_postgres_connections, env) if env.hosted else partial(_sqlite_handles, loaded_server)
    _load(base, WEB_REQUESTS, 2 * AT_ONCE)  # what the server keeps open for good is open now
    before = held()

    with _highest(held) as highest:
        answers = _load(base, WEB_REQUESTS, REQUESTS)

    assert sum(answers.values()) == REQUESTS
    # No 5xx (nobody waited in vain for a connection): each POST looked for the world in vain.
    assert set(answers) == {(method, path, 404 if method == "POST" else 200) for method, path in WEB_REQUESTS}
    assert _settles(held, before) <= before
    if env.hosted:
        assert highest[0] <= POOL_SIZE
        metrics = scrape(loaded_server)
        assert gauge(metrics, "loreweaver_db_connections_max") == POOL_SIZE
        assert 1 <= gauge(metrics, "loreweaver_db_connections") <= POOL_SIZE
        assert gauge(metrics, "loreweaver_db_connection_timeouts_total") == 0
    else:
        assert gauge(scrape(loaded_server), "loreweaver_db_connections") >= 1


def test_the_sidecars_health_port_gives_its_connections_back(hosted_env):
    sidecar = start_iroh_sidecar(hosted_env, TRPG_IROH__HEALTH_BIND="127.0.0.1:0", **POOL)
    try:
        base = sidecar.banner_value("Health: ").split()[0].rstrip("/")
        held = partial(_postgres_connections, hosted_env)
        assert {_status(base, *asked) for asked in SIDECAR_REQUESTS} == {200}
        before = held()

        with _highest(held) as highest:
            answers = _load(base, SIDECAR_REQUESTS, 400)

        assert answers == Counter({(method, path, 200): 200 for method, path in SIDECAR_REQUESTS})
        assert highest[0] <= POOL_SIZE
        assert _settles(held, before) <= before
    finally:
        sidecar.stop()
