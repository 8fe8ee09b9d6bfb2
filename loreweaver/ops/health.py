"""`/healthz` and `/readyz`: what an orchestrator or an operator asks a process.

`/healthz` answers while the process serves HTTP at all. `/readyz` checks what a
table needs, each check bounded in time, and answers 200 with every check's result,
or 503 naming what is down: the database (and that every migration is applied), the
cache and room bus (Redis, hosted), and the media storage (disk or S3). The last
scheduled backup is reported too, and a failed one is named in `warnings`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as CheckTimeout

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from rooms.models import BackupRun

CHECK_SECONDS = 2.0
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
    import redis

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


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up."""
    return JsonResponse({"status": "ok"})


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Every dependency reachable (200), or 503 naming what is down."""
    status, body = readiness()
    return JsonResponse(body, status=status)


def readiness() -> tuple[int, dict]:
    """The `/readyz` answer: its HTTP status and body (the sidecar's health port
    answers the same)."""
    started = time.monotonic()
    running = {name: _pool.submit(check) for name, check in {**CHECKS, **WARNINGS}.items()}
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
