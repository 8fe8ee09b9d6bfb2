"""`manage.py serve` tells a person what to do rather than showing a traceback: on a
database that was never migrated it names the migrate command, on a port in use it
exits non-zero naming `ARGS="--port …"`, and a start after the first (no key minted)
says how to mint one, with this interpreter's path as a person would type it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

from loreweaver.testing.servers import ROOT, create_env, start_serve


def _embedded(data_dir) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(TRPG_DATA_DIR=str(data_dir), TRPG_IROH__BIND="127.0.0.1:0", PYTHONUNBUFFERED="1")
    return env


def _serve(data_dir, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "serve", "--iroh-no-relay", *args],
        cwd=ROOT,
        env=_embedded(data_dir),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_on_an_unmigrated_database_says_to_migrate(tmp_path):
    refused = _serve(tmp_path / "fresh", "--port", "0")
    assert refused.returncode != 0
    assert "not migrated" in refused.stderr and "manage.py migrate" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


def test_serve_on_a_port_in_use_exits_naming_another_port(tmp_path):
    env = create_env(tmp_path / "table", hosted=False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = _serve(env.data_dir, "--no-iroh", "--port", str(port))
    assert refused.returncode != 0
    assert f'ARGS="--port {port + 1}"' in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_later_start_says_how_to_mint_a_key_with_this_python(tmp_path):
    env = create_env(tmp_path / "table", hosted=False)
    env.mint("table", "Kim", "keeper")  # a key exists: nothing is minted at start
    server = start_serve(env)
    try:
        banner = "\n".join(server.banner)
    finally:
        server.stop()
    hint = re.search(r"Keys: mint one with (\S+) manage\.py mint_key --room", banner)
    assert hint, banner
    assert os.path.exists(ROOT / hint.group(1)) or os.path.exists(hint.group(1))
    admin = re.search(r"first login: (\S+) manage\.py createsuperuser", banner)
    assert admin and admin.group(1) == hint.group(1)
