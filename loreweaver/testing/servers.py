"""Real server processes for end-to-end tests: `manage.py serve` / `iroh_serve` as subprocesses.

Each test environment has its own data dir and keys.toml; on the hosted profile it
also gets a fresh Postgres database and its own Redis key prefix, so test runs never
see each other's rooms. Keys are minted by appending to keys.toml, which the server
re-reads when an unknown key arrives (the operator's live keys.toml path).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import json
import os
import queue
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import psycopg
import pytest
import redis
import tomli_w

from loreweaver.testing import forkserver
from loreweaver.wire.coordination import PROCESS_HEARTBEAT_SECONDS, Coordination
from loreweaver.wire.stores import RedisStore

ROOT = Path(__file__).resolve().parents[2]
POSTGRES_ADMIN_URL = os.environ.get("TRPG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_TEST_URL = os.environ.get("TRPG_TEST_REDIS", "redis://127.0.0.1:6379/0")


# Whether servers and commands start as forks of the fork server (`fork_processes`).
_forking = False


def fork_processes() -> None:
    """Start this process's servers and management commands from the fork server
    (loreweaver/testing/forkserver.py), as the test suites do; the benchmarks start
    fresh interpreters."""
    global _forking
    # TRPG_TEST_FRESH_PROCESSES=1 turns it off, to rule it out when a test misbehaves.
    _forking = not os.environ.get("TRPG_TEST_FRESH_PROCESSES")


def _forks(root: Path, launcher: list[str] | None = None) -> bool:
    # Another checkout's code (a benchmark's baseline) and a profiler's child start fresh.
    return _forking and not launcher and root == ROOT


def hosted_profile() -> bool:
    """Whether this test run is on the hosted profile (Postgres + Redis)."""
    return bool(os.environ.get("REDIS_URL"))


@dataclass
class ServerEnv:
    """Where a group of server processes keep their state; they share it."""

    data_dir: Path
    hosted: bool
    extra: dict[str, str] = field(default_factory=dict)
    database: str = ""
    redis_prefix: str = ""
    redis_url: str = REDIS_TEST_URL
    # The checkout whose `manage.py` runs (another revision's, for a side-by-side benchmark).
    root: Path = ROOT

    @property
    def keys_file(self) -> Path:
        return self.data_dir / "keys.toml"

    def environ(self, **overrides: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(
            TRPG_DATA_DIR=str(self.data_dir),
            TRPG_TUI_KEYS=str(self.keys_file),
            TRPG_IROH__BIND="127.0.0.1:0",
            TRPG_RATE__REFILL_SECONDS="0",
            # Tests send wrong keys on purpose; the throttle has a test of its own.
            TRPG_RATE__BAD_KEYS_FREE="100000",
            # Many tests seat guests and start games from loopback; the allowances per
            # address have tests of their own.
            TRPG_GUESTS__NEW_PER_ADDRESS="100000",
            TRPG_SIDEQUEST__GAMES_PER_ADDRESS="100000",
            # Tests read `/metrics` and the whole `/readyz` as an operator's scraper does,
            # with the token (loreweaver/testing/metrics.py): loopback is not trusted.
            TRPG_METRICS_TOKEN=TEST_METRICS_TOKEN,
            PYTHONUNBUFFERED="1",
        )
        if self.hosted:
            env.update(
                DATABASE_URL=self.database_url,
                REDIS_URL=self.redis_url,
                TRPG_REDIS_PREFIX=self.redis_prefix,
                # What a hosted server refuses to start without (loreweaver/wire/deploy.py).
                DJANGO_SECRET_KEY=TEST_SECRET_KEY,
                DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            )
        env.update(self.extra)
        env.update(overrides)
        return env

    @property
    def database_url(self) -> str:
        """The hosted environment's Postgres database."""
        return POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + "/" + self.database

    def mint(self, room: str, name: str, role: str = "player") -> str:
        """A new key for `room`, appended to keys.toml (picked up at the next join)."""
        key = secrets.token_urlsafe(24)
        with self.keys_file.open("a", encoding="utf-8") as handle:
            handle.write("\n" + tomli_w.dumps({key: {"room": room, "name": name, "role": role}}))
        # Make sure the mtime changes even within the file system's timestamp granularity.
        stamp = time.time_ns()
        os.utime(self.keys_file, ns=(stamp, stamp))
        return key

    def manage(self, *args: str, **overrides: str) -> subprocess.CompletedProcess:
        """Run a management command against this environment."""
        if _forks(self.root):
            return forkserver.run(["manage.py", *args], self.environ(**overrides), self.root, timeout=120)
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.root,
            env=self.environ(**overrides),
            capture_output=True,
            text=True,
            timeout=120,
        )


# The secret every hosted test server shares (a test's processes must agree on it).
TEST_SECRET_KEY = "test-only-secret-" + "x" * 40
# The bearer token every test server's `/metrics` answers (TRPG_METRICS_TOKEN).
TEST_METRICS_TOKEN = "test-only-metrics-token-" + "m" * 24


def create_env(
    base: Path, *, hosted: bool, redis_url: str = REDIS_TEST_URL, root: Path = ROOT, **extra: str
) -> ServerEnv:
    """A fresh, migrated environment under `base` (hosted: on `redis_url`), for the
    server code of the checkout at `root`."""
    base.mkdir(parents=True, exist_ok=True)
    env = ServerEnv(data_dir=base, hosted=hosted, extra=dict(extra), redis_url=redis_url, root=root)
    env.keys_file.touch()
    if hosted:
        env.database = f"lw_e2e_{secrets.token_hex(4)}"
        env.redis_prefix = f"lwtest{secrets.token_hex(4)}"
        template = _postgres_template(root)
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{env.database}" TEMPLATE "{template}"')
    else:
        _copy_sqlite(_sqlite_template(root), base / "db.sqlite3")
    return env


# A migration run costs two seconds and the suites make well over a hundred
# environments, so each profile migrates once per schema into a template that every
# environment is then copied from. A template is named by a digest of everything that
# decides the schema (the migrations and the pinned requirements of the checkout), so a
# changed migration, or another revision's checkout in a side-by-side benchmark, gets
# its own; it is built under a temporary name and renamed into place, so a template
# that exists is complete even when two test runs build it at once.


def _schema_digest(root: Path) -> str:
    digest = hashlib.sha256()
    # The apps sit one or two levels down (rooms/, loreweaver/console/); the pinned
    # requirements stand for the migrations of Django and the libraries.
    migrations = sorted([*root.glob("*/migrations/*.py"), *root.glob("*/*/migrations/*.py")])
    for path in [*migrations, root / "requirements.txt"]:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _migrate_into(data_dir: Path, root: Path, **overrides: str) -> None:
    env = ServerEnv(data_dir=data_dir, hosted=False, root=root)
    result = env.manage("migrate", "--noinput", "-v0", **overrides)
    if result.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{result.stdout}\n{result.stderr}")


def _postgres_template(root: Path) -> str:
    name = f"lw_tpl_{_schema_digest(root)}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return name
        building = f"{name}_{secrets.token_hex(3)}"
        connection.execute(f'CREATE DATABASE "{building}"')
    with tempfile.TemporaryDirectory() as scratch:
        url = POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + "/" + building
        _migrate_into(
            Path(scratch),
            root,
            DATABASE_URL=url,
            REDIS_URL=REDIS_TEST_URL,
            DJANGO_SECRET_KEY=TEST_SECRET_KEY,
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
        )
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
        try:
            connection.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        except psycopg.errors.DuplicateDatabase:  # another run finished first
            connection.execute(f'DROP DATABASE "{building}" WITH (FORCE)')
    return name


def _sqlite_template(root: Path) -> Path:
    template = Path(tempfile.gettempdir()) / f"lw_tpl_{_schema_digest(root)}.sqlite3"
    if template.exists():
        return template
    with tempfile.TemporaryDirectory() as scratch:
        _migrate_into(Path(scratch), root)
        building = template.with_name(f"{template.name}.{secrets.token_hex(3)}")
        _copy_sqlite(Path(scratch) / "db.sqlite3", building)
        os.replace(building, template)
    return template


def _copy_sqlite(source: Path, target: Path) -> None:
    # The backup API copies a consistent database whatever its journal mode.
    with (
        contextlib.closing(sqlite3.connect(source)) as src,
        contextlib.closing(sqlite3.connect(target)) as dst,
    ):
        src.backup(dst)


def destroy_env(env: ServerEnv) -> None:
    """Drop what the environment made outside its data dir."""
    if not env.hosted:
        return
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{env.database}" WITH (FORCE)')
    client = redis.Redis.from_url(env.redis_url)
    try:
        for key in client.scan_iter(f"{env.redis_prefix}*"):
            client.delete(key)
    except redis.ConnectionError:
        pass  # a Redis of the test's own, already stopped


class ServerProcess:
    """One running server; its printed banner tells the addresses."""

    def __init__(
        self, env: ServerEnv, args: list[str], overrides: dict[str, str], launcher: list[str] | None = None
    ) -> None:
        self.env = env
        self.args = args
        self.log_path = env.data_dir / f"server-{secrets.token_hex(3)}.log"
        self._log = self.log_path.open("w")
        # A launcher (a profiler) runs the server as its child and is stopped with SIGINT.
        self.launcher = launcher or []
        self.proc: subprocess.Popen | forkserver.ForkedProcess
        if _forks(env.root, launcher):
            command = ["manage.py", *args]
            self.proc = forkserver.spawn(
                command, env.environ(**overrides), env.root, stdout=subprocess.PIPE, stderr=self._log
            )
        else:
            self.proc = subprocess.Popen(
                [*self.launcher, sys.executable, "manage.py", *args],
                cwd=env.root,
                env=env.environ(**overrides),
                stdout=subprocess.PIPE,
                stderr=self._log,
                text=True,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        self.banner: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self.ws_url = ""
        self.ticket = ""
        self._wait_ready()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(
                    f"server did not become ready: {self.banner}\n{self.log_path.read_text()[-3000:]}"
                )
            try:
                line = self.lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            self.banner.append(line)
            if line.startswith("WebSocket: "):
                self.ws_url = line.split(": ", 1)[1]
            elif line.startswith("Iroh ticket: "):
                self.ticket = line.split(": ", 1)[1]
            elif line.startswith("Ready."):
                return

    def banner_value(self, prefix: str) -> str | None:
        """The rest of the banner line that starts with `prefix`, if printed."""
        for line in self.banner:
            if line.startswith(prefix):
                return line[len(prefix) :]
        return None

    @property
    def pid(self) -> int:
        """The server's own process id (the launcher's child, when one runs it)."""
        if not self.launcher:
            return self.proc.pid
        return psutil.Process(self.proc.pid).children()[0].pid

    def log_text(self) -> str:
        """What the server wrote to its log (stderr) so far."""
        return self.log_path.read_text(errors="replace")

    def rss(self) -> int:
        """The server's resident memory, in bytes."""
        return psutil.Process(self.pid).memory_info().rss

    def terminate(self) -> None:
        """Send SIGTERM (what a deploy or `docker compose stop` sends) and return at once."""
        self.proc.send_signal(signal.SIGTERM)

    def wait_for_log(self, text: str, timeout: float = 10.0) -> None:
        """Wait until the server's log says `text` (a step with no frame to wait for)."""
        deadline = time.monotonic() + timeout
        while text not in self.log_text():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the server never logged {text!r}:\n{self.log_text()[-3000:]}")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM and wait; SIGKILL if it will not stop."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if self.launcher else signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        return self.proc.returncode

    def kill9(self) -> None:
        """Kill the process the hard way, as a crash would."""
        self.proc.kill()
        self.proc.wait(10)
        self._log.close()


def start_serve(
    env: ServerEnv, *extra_args: str, launcher: list[str] | None = None, **overrides: str
) -> ServerProcess:
    """`manage.py serve` on a free port with Iroh on loopback, relays off (run by
    `launcher`, a profiler say, when given)."""
    return ServerProcess(env, ["serve", "--port", "0", "--iroh-no-relay", *extra_args], overrides, launcher)


def keeper_model(url: str, **overrides: str) -> dict[str, str]:
    """The environment that makes a server's Keeper the scripted provider at `url`."""
    return {
        "TRPG_LLM__PROVIDER": "openai",
        "TRPG_LLM__BASE_URL": url,
        "TRPG_LLM__API_KEY": "sk-test-scripted-0000",
        "TRPG_LLM__CHAT_MODEL": "scripted-keeper",
        "TRPG_LLM__RETRIES": "0",
        **overrides,
    }


def start_iroh_sidecar(env: ServerEnv, **overrides: str) -> ServerProcess:
    """`manage.py iroh_serve` with relays off."""
    return ServerProcess(env, ["iroh_serve", "--iroh-no-relay"], overrides)


@contextlib.contextmanager
def _database(env: ServerEnv):
    """A connection to the environment's database, from the test process, and the
    placeholder its SQL takes (`%s` on Postgres, `?` on SQLite); committed on exit."""
    if env.hosted:
        with psycopg.connect(env.database_url) as connection:
            yield connection, "%s"
        return
    with sqlite3.connect(env.data_dir / "db.sqlite3") as connection:
        yield connection, "?"


def add_staff_user(env: ServerEnv, username: str, email: str, password_hash: str) -> None:
    """A superuser row in the environment's database (`password_hash` as Django hashes)."""
    now = datetime.datetime.now(datetime.UTC)
    with _database(env) as (connection, mark):
        connection.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email,"
            f" is_staff, is_active, date_joined) VALUES ({', '.join([mark] * 9)})",
            (password_hash, True, username, "", "", email, True, True, now),
        )


def room_id_of(env: ServerEnv, room: str) -> int:
    """The database id of `room` in the environment's database."""
    with _database(env) as (connection, mark):
        row = connection.execute(f"SELECT id FROM rooms_room WHERE name = {mark}", (room,)).fetchone()
    if row is None:
        raise LookupError(room)
    return row[0]


def set_key_expiry(env: ServerEnv, room: str, name: str, moment: datetime.datetime) -> None:
    """Make the keys of `name` in `room` run out at `moment`: the server's clock passing
    a key's expiry, without waiting for it."""
    room_id = room_id_of(env, room)
    # Django keeps SQLite times as UTC text.
    stamp = moment if env.hosted else moment.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    with _database(env) as (connection, mark):
        connection.execute(
            f"UPDATE rooms_accesskey SET expires_at = {mark} WHERE room_id = {mark} AND name = {mark}",
            (stamp, room_id, name),
        )


def set_character_resource(env: ServerEnv, room: str, name: str, resource: str, value: int) -> None:
    """Change a character's vital straight in the database, as a script or the admin
    would, outside any turn of the table."""
    room_id = room_id_of(env, room)
    with _database(env) as (connection, mark):
        row_id, resources = connection.execute(
            f"SELECT id, resources FROM keeper_character WHERE room_id = {mark} AND name = {mark}",
            (room_id, name),
        ).fetchone()
        resources = json.loads(resources) if isinstance(resources, str) else resources
        resources[resource] = value
        update = f"UPDATE keeper_character SET resources = {mark} WHERE id = {mark}"
        connection.execute(update, (json.dumps(resources), row_id))


def backup_folder(env: ServerEnv, room: str) -> Path:
    """The folder of `room`'s backups (the room must exist)."""
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", room)[:40]
    return env.data_dir / "room_backups" / f"{room_id_of(env, room)}-{slug}"


def coordination_of(env: ServerEnv):
    """The servers' cross-process coordination, seen from the test process (hosted only)."""
    return Coordination(RedisStore(env.redis_url, env.redis_prefix))


@contextlib.asynccontextmanager
async def heartbeating(coordination: Coordination):
    """The test process alive to `coordination`, as a server process is: its heartbeat
    sent now and every PROCESS_HEARTBEAT_SECONDS until the block ends. A single beat
    lapses after PROCESS_TTL, which a test on a loaded machine may outlast."""

    async def beat() -> None:
        while True:
            await coordination.process_heartbeat()
            await asyncio.sleep(PROCESS_HEARTBEAT_SECONDS)

    await coordination.process_heartbeat()
    beating = asyncio.create_task(beat())
    try:
        yield coordination
    finally:
        beating.cancel()


@contextlib.asynccontextmanager
async def holding_the_turn(env: ServerEnv, room: str, actor: str = "Someone else"):
    """Hold `room`'s turn from the test process, as another server process would: with
    a heartbeat of its own, so the servers know the holder is alive (hosted only)."""
    coordination = coordination_of(env)
    async with heartbeating(coordination), coordination.room_turn(room_id_of(env, room), actor):
        yield coordination


def release_failpoint(server: ServerProcess, name: str) -> None:
    """Let the server's held failpoint `name` (`name@hold`, base/failpoints.py) go on."""
    folder = server.env.data_dir / "failpoints"
    folder.mkdir(exist_ok=True)
    (folder / name).touch()


def dedicated_server(**overrides: str):
    """A module-scoped fixture: a server of its own, started with `overrides` in its env."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory):
        env = create_env(tmp_path_factory.mktemp("dedicated"), hosted=hosted_profile())
        process = start_serve(env, **overrides)
        yield process
        process.stop()
        destroy_env(env)

    return fixture


def database_snapshot(env: ServerEnv) -> dict[str, list[tuple]]:
    """Every row of every table of the environment's database (sessions and the
    migration log aside), read from the test process: what "nothing changed" means."""
    skip = ("django_migrations", "django_session", "sqlite_sequence")
    if env.hosted:
        with psycopg.connect(env.database_url) as connection:
            tables = [
                row[0]
                for row in connection.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
                )
            ]
            return {
                table: sorted(map(repr, connection.execute(f'SELECT * FROM "{table}"').fetchall()))
                for table in tables
                if table not in skip
            }
    with sqlite3.connect(env.data_dir / "db.sqlite3") as connection:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        return {
            table: sorted(map(repr, connection.execute(f'SELECT * FROM "{table}"').fetchall()))
            for table in tables
            if table not in skip
        }


class RedisServer:
    """A Redis of the test's own on a free port, keeping nothing on disk (as the
    machine's), that the test can stop and start again on the same port."""

    def __init__(self, workdir: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (again) on the same port and wait until it answers."""
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url).ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop it at once (its data is gone, as in a restart without persistence)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None
