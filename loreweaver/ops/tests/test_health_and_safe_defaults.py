"""What an operator relies on (docs/operations.md, "Deploying"): `/healthz` and
`/readyz` (503 naming Redis while the table's Redis is down, 200 once it is back), a
hosted server that refuses to start with a default secret or no allowed hosts, and a
clean `check --deploy` behind a TLS proxy the table is told to trust (a warning when
it is not)."""

from __future__ import annotations

import asyncio
import json

import pytest

from loreweaver.testing.metrics import as_scraper
from loreweaver.testing.servers import RedisServer, create_env, destroy_env, start_serve

STRONG = "a-strong-secret-for-the-deploy-check-" + "y" * 30


def _get(url: str) -> tuple[int, dict]:
    """`url` as the operator's scraper reads it (the whole `/readyz`, with the token)."""
    status, body = as_scraper(url)
    return status, json.loads(body)


async def _wait_for_status(url: str, status: int) -> dict:
    """The body of `/readyz` once it answers `status` (polled; the test's timeout bounds it)."""
    while True:
        code, body = await asyncio.to_thread(_get, url)
        if code == status:
            return body
        await asyncio.sleep(0.2)


@pytest.fixture
def own_redis(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    yield redis
    redis.stop()


@pytest.mark.timeout(120)
async def test_readyz_names_redis_while_it_is_down_and_recovers(tmp_path, own_redis):
    env = create_env(tmp_path / "table", hosted=True, redis_url=own_redis.url)
    server = start_serve(env, "--no-iroh")
    base = server.ws_url.replace("ws://", "http://").rstrip("/")
    try:
        assert _get(f"{base}/healthz") == (200, {"status": "ok"})
        ready = await _wait_for_status(f"{base}/readyz", 200)
        assert ready["status"] == "ready" and ready["checks"]["database"] == "ok"
        own_redis.stop()
        down = await _wait_for_status(f"{base}/readyz", 503)
        assert down["down"] == ["redis"] and down["status"] == "unready"
        assert _get(f"{base}/healthz")[0] == 200, "the process itself is still up"
        own_redis.start()
        await _wait_for_status(f"{base}/readyz", 200)
    finally:
        server.stop()
        destroy_env(env)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    env = create_env(tmp_path_factory.mktemp("deploy"), hosted=True)
    yield env
    destroy_env(env)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"DJANGO_SECRET_KEY": "change-me-in-production"}, "DJANGO_SECRET_KEY is a default"),
        ({"DJANGO_SECRET_KEY": "short"}, "DJANGO_SECRET_KEY is a default or shorter"),
        ({"DJANGO_SECRET_KEY": ""}, "DJANGO_SECRET_KEY is not set"),
        ({"DJANGO_ALLOWED_HOSTS": ""}, "DJANGO_ALLOWED_HOSTS is not set"),
    ],
)
def test_a_hosted_server_refuses_to_start_with_unsafe_defaults(hosted, overrides, named):
    for command in (["serve", "--port", "0", "--no-iroh"], ["iroh_serve"]):
        started = hosted.manage(*command, **overrides)
        assert started.returncode != 0
        assert named in started.stderr and "will not start" in started.stderr


def test_check_deploy_is_clean_behind_a_tls_proxy_the_table_trusts(hosted):
    deploy = ("check", "--deploy", "--fail-level", "WARNING")
    behind = {"DJANGO_SECRET_KEY": STRONG, "TRPG_BEHIND_TLS_PROXY": "1"}
    clean = hosted.manage(*deploy, **behind, TRPG_TRUSTED_PROXIES="172.30.57.10")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    unlisted = hosted.manage(*deploy, **behind)
    assert unlisted.returncode != 0 and "TRPG_TRUSTED_PROXIES" in unlisted.stdout + unlisted.stderr
    plain = hosted.manage(*deploy, DJANGO_SECRET_KEY=STRONG)
    assert plain.returncode != 0 and "SECURE_SSL_REDIRECT" in plain.stdout + plain.stderr
