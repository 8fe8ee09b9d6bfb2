"""The README's commands and the CI script do what they promise."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
from pathlib import Path

from loreweaver.testing.clients import WsClient

ROOT = Path(__file__).resolve().parents[2]


def test_make_serve_migrates_and_prints_url_ticket_and_a_first_keeper_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(TRPG_DATA_DIR=str(tmp_path / "data"), TRPG_IROH__BIND="127.0.0.1:0", PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        ["make", "--no-print-directory", "serve", "ARGS=--port 0 --iroh-no-relay"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    banner: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            banner.append(line.rstrip())
            if line.startswith("Ready.") or len(banner) > 200:
                break
        text = "\n".join(banner)
        url = re.search(r"^WebSocket: (ws://\S+)$", text, re.M)
        ticket = re.search(r"^Iroh ticket: (endpoint\w+)$", text, re.M)
        key = re.search(r'^Keeper key for room "table" \(shown once, store it now\): (\S+)$', text, re.M)
        assert url and ticket and key, text
        assert (tmp_path / "data" / "db.sqlite3").exists()
        assert (tmp_path / "data" / "iroh-ticket.txt").read_text().strip() == ticket.group(1)
        welcome = asyncio.run(_join(url.group(1), key.group(1)))[0]
        assert welcome["room"] == "table" and welcome["you"]["role"] == "keeper"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)


async def _join(url: str, key: str) -> list[dict]:
    async with await WsClient.connect(url) as client:
        return await client.join(key)


def test_ci_runs_make_test_on_both_profiles_after_starting_the_services():
    script = (ROOT / ".ci" / "run").read_text()
    assert "pg_isready" in script and "pg_ctlcluster" in script
    assert "redis-cli" in script and "redis-server" in script
    runs = [line for line in script.splitlines() if line.rstrip().endswith("make test")]
    assert len(runs) == 2, runs
    assert "env -u DATABASE_URL -u REDIS_URL make test" in script
    hosted = script[script.index("DATABASE_URL=postgresql://") :]
    assert "REDIS_URL=redis://" in hosted.split("make test", 1)[0], "the second run is on the hosted profile"
    assert "make bench-quick" in script
