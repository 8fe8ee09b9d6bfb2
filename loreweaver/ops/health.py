"""`/healthz` and `/readyz`: what an orchestrator or an operator asks a process.

`/healthz` answers while the process serves HTTP at all. `/readyz` checks what a
table needs, each check bounded in time, and answers 200, or 503 naming what is down:
the database (and that every migration is applied), the cache and room bus (Redis,
hosted), and the media storage (disk or S3). The last scheduled backup is reported too,
and a failed one is named in `warnings`.

Any caller may ask as often as it likes: the checks run in the background at most once
a second (`Readiness`), and an answer is the last result. Strangers learn only which
dependency is down; each check's words (an error's text names hosts and ports) are for
the callers `/metrics` answers (an address of `TRPG_METRICS_ALLOWED`, or the metrics
token), and for the log, where a change of state is written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as CheckTimeout

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor

from loreweaver.ops import metrics as metrics_page
from rooms.models import BackupRun

log = logging.getLogger(__name__)

CHECK_SECONDS = 2.0
REFRESH_SECONDS = 1.0  # the checks run at most this often, however many callers ask
_migrated = False  # once every migration was applied, a process does not ask again


def _database() -> str:
    global _migrated
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    if not _migrated:
        if MigrationExecutor(connection).migration_plan(
            MigrationExecutor(connection).loader.graph.leaf_nodes()
        ):
            raise RuntimeError("migrations are not applied (manage.py migrate)")
        _migrated = True
    return "ok"


def _redis() -> str:
    if not settings.REDIS_URL:
        return "not used (embedded: in-process bus and cache)"
    import redis  # loaded only on the hosted profile, where Redis is used at all

    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


def _storage() -> str:
    default_storage.exists("readyz-probe")
    return "ok"


def backups_state() -> tuple[str, bool]:
    """The last scheduled backup run, told in words, and whether it failed."""
    last = BackupRun.objects.first()
    if last is None:
        return "no scheduled backup has run yet (manage.py backup_rooms)", False
    when = last.finished_at.isoformat(timespec="seconds")
    if last.ok:
        return f"ok: {last.rooms} room(s) backed up at {when}", False
    first = last.failures.splitlines()[0] if last.failures else "see the backup job's log"
    return f"the last run failed at {when}: {first}"[:300], True


def _backups() -> str:
    told, failed = backups_state()
    if failed:
        raise _Warning(told)
    return told


class _Warning(Exception):
    """A check that found trouble the table can still play through."""


CHECKS: dict[str, Callable[[], str]] = {"database": _database, "redis": _redis, "media_storage": _storage}
# A failed backup does not stop play, so it does not make the process unready (an
# orchestrator would take a healthy table out of service): it is named in `warnings`.
WARNINGS: dict[str, Callable[[], str]] = {"backups": _backups}
_pool = ThreadPoolExecutor(max_workers=len(CHECKS) + len(WARNINGS), thread_name_prefix="readyz")


def _giving_back(check: Callable[[], str]) -> Callable[[], str]:
    """`check`, then the connection it used closed (hosted: given back to the pool),
    however the check ended: any of the checking threads may run the next one, and
    none of them keeps a connection between checks."""

    def run() -> str:
        try:
            return check()
        finally:
            connections.close_all()

    return run


def readiness_for(*, trusted: bool) -> tuple[int, dict]:
    """The `/readyz` answer for a caller: the whole of it for a trusted one (an address
    of `TRPG_METRICS_ALLOWED`, or the metrics token), else only the status and the
    names of what is down."""
    status, body = READINESS.answer()
    if trusted:
        return status, body
    return status, {key: body[key] for key in ("status", "down", "warnings")}


def readiness() -> tuple[int, dict]:
    """Run every check now: the `/readyz` answer, its HTTP status and body."""
    started = time.monotonic()
    running = {name: _pool.submit(_giving_back(check)) for name, check in {**CHECKS, **WARNINGS}.items()}
    checks, down, warnings = {}, [], []
    for name, future in running.items():
        troubled = warnings if name in WARNINGS else down
        try:
            checks[name] = future.result(timeout=max(0.1, CHECK_SECONDS - (time.monotonic() - started)))
        except CheckTimeout:
            checks[name] = f"no answer within {CHECK_SECONDS} s"
            troubled.append(name)
        except _Warning as warning:
            checks[name] = str(warning)
            troubled.append(name)
        except Exception as failure:  # whatever a dependency raises, it is down
            checks[name] = f"{type(failure).__name__}: {failure}"[:300]
            troubled.append(name)
    body = {"status": "unready" if down else "ready", "down": down, "warnings": warnings, "checks": checks}
    return 503 if down else 200, body


class Readiness:
    """The last readiness answer, refreshed in a background thread at most once every
    `REFRESH_SECONDS` while callers ask: a flood of `/readyz` runs the checks no more
    often than one caller would, and no caller waits on a slow dependency (but the
    very first, which has nothing older to be told)."""

    def __init__(self, check: Callable[[], tuple[int, dict]] = readiness) -> None:
        self._check = check
        self._lock = threading.Lock()
        self._answer: tuple[int, dict] | None = None
        self._first = threading.Event()
        self._checked_at = float("-inf")
        self._refreshing = False

    def has_answer(self) -> bool:
        """Whether a first answer exists (asking then never waits)."""
        return self._first.is_set()

    def answer(self) -> tuple[int, dict]:
        """The newest answer (starting a refresh in the background when it is stale)."""
        with self._lock:
            start = not self._refreshing and time.monotonic() - self._checked_at >= REFRESH_SECONDS
            if start:
                self._refreshing = True
        if start:
            threading.Thread(target=self._refresh, name="readyz-refresh", daemon=True).start()
        self._first.wait(timeout=CHECK_SECONDS + 1)
        return self._answer or (503, _NOT_YET)

    def _refresh(self) -> None:
        try:
            answer = self._check()
        except Exception as failure:  # a check that cannot even run leaves the process unready
            answer = (503, {**_NOT_YET, "checks": {"readiness": f"{type(failure).__name__}: {failure}"}})
        previous, self._answer = self._answer, answer
        with self._lock:
            self._checked_at = time.monotonic()
            self._refreshing = False
        self._first.set()
        _log_change(previous, answer)


_NOT_YET = {"status": "unready", "down": ["readiness"], "warnings": [], "checks": {}}


def _log_change(previous: tuple[int, dict] | None, now: tuple[int, dict]) -> None:
    """Write a change of readiness to the log, with the words strangers are not told."""
    before = (previous[1]["down"], previous[1]["warnings"]) if previous else ([], [])
    _status, body = now
    if (body["down"], body["warnings"]) == before:
        return
    troubled = {name: body["checks"].get(name, "") for name in body["down"] + body["warnings"]}
    if troubled:
        log.warning("readiness %s: %s", body["status"], "; ".join(f"{k}: {v}" for k, v in troubled.items()))
    else:
        log.info("readiness ready again")


READINESS = Readiness()


def health_first(django_http: Callable) -> Callable:
    """An ASGI app that answers `/healthz` and `/readyz` itself and hands every other
    request to `django_http`: probes never wait for (nor hold) the threads of Django's
    views (`http_threads.py`) or the thread of the table's database work."""

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        path = scope.get("path", "")
        if path not in ("/healthz", "/readyz") or scope.get("method") not in ("GET", "HEAD"):
            await django_http(scope, receive, send)
            return
        if path == "/healthz":
            status, body = 200, {"status": "ok"}
        else:
            headers = dict(scope.get("headers", []))
            client = (scope.get("client") or ("", 0))[0]
            trusted = metrics_page.allowed(client, headers.get(b"authorization", b"").decode("latin-1"))
            if READINESS.has_answer():
                status, body = readiness_for(trusted=trusted)
            else:
                status, body = await asyncio.to_thread(readiness_for, trusted=trusted)
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload if scope["method"] == "GET" else b""})

    return app
