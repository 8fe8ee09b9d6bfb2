"""The fixtures every test package shares (loaded by the root conftest): a room name of
the test's own, both carriers, and real server processes to talk to."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import translation

from loreweaver.testing.browser import CHROMIUM
from loreweaver.testing.operator_http import password_hash
from loreweaver.testing.s3 import S3Server
from loreweaver.testing.servers import (
    ServerEnv,
    ServerProcess,
    create_env,
    destroy_env,
    fork_processes,
    hosted_profile,
    start_serve,
)

# The suites' servers and commands start from a fork server (see its module).
fork_processes()

# The modules that take longest, longest first. `make test` runs each module on one
# worker (`--dist loadscope`, so a module's server starts once) and hands modules out
# in this order, then the rest in collection order: a worker that starts with one of
# these is not left running it alone at the end. Refresh it from `--durations`.
LONGEST_FIRST = [
    "loreweaver/wire/tests/test_fuzzing_over_websocket.py",
    "loreweaver/wire/tests/test_fuzzing_over_iroh.py",
    "loreweaver/wire/tests/test_a_cold_start_admits_every_join.py",  # hosted profile only
    "loreweaver/ops/tests/test_health_and_safe_defaults.py",
    "loreweaver/console/tests/test_console_in_the_browser.py",
    "loreweaver/console/tests/test_every_console_page_fits_a_phone.py",
    "rooms/tests/test_backup_integrity.py",
    "keeper/tests/test_campaign_memory.py",
    "loreweaver/table/tests/test_playing_in_the_browser.py",
    "loreweaver/table/tests/test_the_sample_adventure_in_the_browser.py",
    "loreweaver/table/tests/test_a_newcomers_first_minutes.py",
    "loreweaver/wire/tests/test_hosted_faults.py",
    "loreweaver/wire/tests/test_silent_sockets_from_many_addresses_leave_room_for_the_right_key.py",
    "rooms/tests/test_keys_on_disk.py",
    "loreweaver/table/tests/test_the_table_honours_an_operators_disconnect.py",
    "loreweaver/wire/tests/test_handshake_failures.py",
    "rooms/tests/test_backups_reach_s3.py",
    "packs/tests/test_hooks_at_the_table.py",
    "loreweaver/wire/tests/test_wrong_keys_from_one_address_leave_room_for_the_right_one.py",
    "loreweaver/wire/tests/test_limits_before_join.py",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the tests of `LONGEST_FIRST` first, in its order (a stable sort: each
    module's tests stay together and in their own order)."""
    rank = {path: number for number, path in enumerate(LONGEST_FIRST)}
    root = config.rootpath
    items.sort(key=lambda item: rank.get(item.path.relative_to(root).as_posix(), len(rank)))


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Each test starts in the server's default language: a request through the
    console's LocaleMiddleware leaves the language it chose active in the test's thread."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def room() -> str:
    """A room name no other test uses."""
    return f"room-{secrets.token_hex(4)}"


@pytest.fixture(params=["ws", "iroh"])
def carrier(request: pytest.FixtureRequest) -> str:
    """Run the test over each carrier."""
    return request.param


@pytest.fixture(scope="session")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerEnv]:
    """One migrated environment (data dir, database, Redis prefix) for the session."""
    env = create_env(tmp_path_factory.mktemp("table"), hosted=hosted_profile())
    yield env
    destroy_env(env)


@pytest.fixture(scope="session")
def server(server_env: ServerEnv) -> Iterator[ServerProcess]:
    """A running `manage.py serve` (WebSocket + Iroh on loopback), rate limits off."""
    process = start_serve(server_env)
    yield process
    process.stop()


@pytest.fixture
def fresh_env(tmp_path: Path) -> Iterator[ServerEnv]:
    """An environment of its own, for tests that start, stop or kill servers."""
    env = create_env(tmp_path / "table", hosted=hosted_profile())
    yield env
    destroy_env(env)


@pytest.fixture(scope="module")
def hosted_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerEnv]:
    """A Postgres + Redis environment, whatever profile the run is on: for tests of
    several processes, which only the hosted profile supports."""
    env = create_env(tmp_path_factory.mktemp("hosted"), hosted=True)
    yield env
    destroy_env(env)


@pytest.fixture
def admin_user(db, django_user_model):
    """pytest-django's staff login ("admin", password "password"), with the password
    hashed once per test process: the hasher's real work was a fifth of the in-process
    tests' time, for the same hash every time."""
    user = django_user_model._default_manager.create_superuser("admin", "admin@example.com", None)
    user.password = password_hash("password")
    user.save(update_fields=["password"])
    return user


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    """A real S3 server on loopback (moto's server mode) with one bucket."""
    server = S3Server()
    yield server
    server.stop()


# This test process's Chromium, the Playwright that drives it and Playwright's event
# loop (started by the first browser test): one launch per process rather than one per
# module saves about a second of CPU per module, and its contexts are lent from a few
# kept ones (see loreweaver/testing/contexts.py).
_chromium: tuple | None = None


def _mark_playwrights_loop(running: bool) -> None:
    """Mark Playwright's event loop as running in this thread, or no loop at all.

    Between its calls, Playwright's synchronous API leaves its own event loop marked as
    running; `asyncio.run`, pytest-asyncio and Django's check for synchronous-only work
    (the test database's teardown, say) then refuse to run. So the mark is set only
    while Playwright is in use: in the browser tests, until their module's pages are
    given back. (asyncio has no public way to do this.)"""
    if _chromium is not None:
        asyncio.events._set_running_loop(_chromium[2] if running else None)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, through Playwright (for the browser tests): the test
    process's own, with contexts lent; each module's are given back after it, so no
    page of one module is still running while the next plays."""
    global _chromium
    if _chromium is None:
        # Playwright is loaded by the browser tests only: most test runs never start one.
        from playwright.sync_api import sync_playwright

        from loreweaver.testing.contexts import LendingBrowser

        playwright = sync_playwright().start()
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        _chromium = playwright, LendingBrowser(launched), asyncio.events._get_running_loop()
    _mark_playwrights_loop(running=True)
    lending = _chromium[1]
    yield lending
    lending.give_back_all()
    _mark_playwrights_loop(running=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Close the test process's Chromium, if a browser test started it."""
    if _chromium is not None:
        playwright, lending, _loop = _chromium
        _mark_playwrights_loop(running=True)
        lending.close()
        playwright.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Run each test with Playwright's event loop marked as running only if it drives
    the browser (see `_mark_playwrights_loop`)."""
    _mark_playwrights_loop(running="browser" in getattr(item, "fixturenames", ()))
    return (yield)
