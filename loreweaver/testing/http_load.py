"""Plain HTTP requests to a running server, one after another and many at once, and
what the server holds of its database meanwhile: the tests and `bench/connections.py`
load a server with these."""

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
from pathlib import Path

import psutil
import psycopg

from loreweaver.testing.servers import POSTGRES_ADMIN_URL, TEST_METRICS_TOKEN, ServerProcess

# Each reads the database (the POST looks for a world nobody opened: 404); /readyz is
# answered before Django, from checks run in the background.
WEB_REQUESTS = [
    ("GET", "/api/genres"),
    ("GET", "/api/sessions"),
    ("POST", "/api/games"),
    ("GET", "/metrics"),
    ("GET", "/"),
    ("GET", "/readyz"),
]
_NEW_GAME = json.dumps({"genre_slug": "pulp_noir", "world_slug": "nowhere", "mode": "solo"}).encode()


def answer(base: str, method: str, path: str) -> int:
    """The status of one request (a POST carries a new-game request as JSON)."""
    body, headers = (_NEW_GAME, {"Content-Type": "application/json"}) if method == "POST" else (None, {})
    headers["Authorization"] = f"Bearer {TEST_METRICS_TOKEN}"  # /metrics and the whole /readyz, as a scraper
    request = urllib.request.Request(base + path, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as refused:
        return refused.code


def load(base: str, requests: list[tuple[str, str]], count: int, at_once: int) -> Counter:
    """`count` requests cycling through `requests`: half one after another, half
    `at_once` at a time; how many of each (method, path) got each status."""

    def send(asked: tuple[str, str]) -> tuple[str, str, int]:
        return (*asked, answer(base, *asked))

    plan = [requests[n % len(requests)] for n in range(count)]
    half = count // 2
    answers = Counter(send(asked) for asked in plan[:half])
    with ThreadPoolExecutor(at_once) as senders:
        answers.update(senders.map(send, plan[half:]))
    return answers


def connections_held(server: ServerProcess) -> int:
    """The server's database connections: hosted, the connections to its database in
    `pg_stat_activity` (the question is asked from another database); embedded, its
    process's open files on the SQLite database (one per connection)."""
    if server.env.hosted:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            return admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (server.env.database,)
            ).fetchone()[0]
    database = (server.env.data_dir / "db.sqlite3").resolve()
    return sum(1 for opened in psutil.Process(server.pid).open_files() if Path(opened.path) == database)


@contextmanager
def highest(count: Callable[[], int], every: float = 0.02) -> Iterator[list[int]]:
    """Sample `count` every `every` seconds while the block runs; [the highest seen]."""
    seen, done = [count()], threading.Event()

    def sample() -> None:
        while not done.wait(every):
            seen[0] = max(seen[0], count())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield seen
    finally:
        done.set()
        sampler.join(5)


def settled(count: Callable[[], int], at_most: int, timeout: float) -> tuple[int, float]:
    """Wait until `count()` is at most `at_most`, for `timeout` seconds at most; its
    last value and the seconds it took."""
    started = time.monotonic()
    while (value := count()) > at_most and time.monotonic() - started < timeout:
        time.sleep(0.1)  # a poll of the count, bounded by the timeout
    return value, time.monotonic() - started
