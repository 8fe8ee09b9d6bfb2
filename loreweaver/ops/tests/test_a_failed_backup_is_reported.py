"""The scheduled backups run in a process of their own (compose's `backup` service);
a run that failed shows in every server's `/readyz` (a warning: the table still plays,
so the process stays ready) and `/metrics`, until a run succeeds (docs/operations.md,
"Scheduled backups")."""

from __future__ import annotations

import json
import re
import time

from loreweaver.testing.metrics import as_scraper
from loreweaver.testing.servers import start_serve


def _get(url: str) -> tuple[int, str]:
    """What the operator's scraper reads (the whole `/readyz`, `/metrics`)."""
    status, body = as_scraper(url)
    return status, body.decode()


def _readyz_once(base: str, warnings: list[str]) -> dict:
    """`/readyz` once it reports `warnings` (its checks run in the background at most once
    a second, so a change shows within about a second; bounded by the test's timeout)."""
    while True:
        status, body = _get(f"{base}/readyz")
        ready = json.loads(body)
        if ready["warnings"] == warnings:
            assert status == 200
            return ready
        time.sleep(0.1)


def _last_run_failed(base: str) -> float:
    status, text = _get(f"{base}/metrics")
    assert status == 200
    return float(re.search(r"^loreweaver_backup_last_run_failed (\S+)$", text, re.M).group(1))


def test_a_failed_backup_run_shows_in_readyz_and_metrics_until_one_succeeds(fresh_env, room):
    minted = fresh_env.manage("mint_key", "--room", room, "--name", "Kim", "--role", "keeper")
    assert minted.returncode == 0, minted.stderr
    server = start_serve(fresh_env, "--no-iroh")
    base = server.ws_url.replace("ws://", "http://").rstrip("/")
    try:
        assert "no scheduled backup has run yet" in _readyz_once(base, [])["checks"]["backups"]

        blocked = fresh_env.data_dir / "room_backups"
        blocked.write_text("a file where the backups folder should be")
        failed = fresh_env.manage("backup_rooms")
        assert failed.returncode != 0 and room in failed.stderr
        ready = _readyz_once(base, ["backups"])
        assert ready["status"] == "ready", "the table still plays"
        told = ready["checks"]["backups"]
        assert told.startswith("the last run failed") and room in told
        assert _last_run_failed(base) == 1

        blocked.unlink()
        done = fresh_env.manage("backup_rooms")
        assert done.returncode == 0, done.stderr
        ready = _readyz_once(base, [])
        assert ready["checks"]["backups"].startswith("ok: 1 room")
        assert _last_run_failed(base) == 0
    finally:
        server.stop()
