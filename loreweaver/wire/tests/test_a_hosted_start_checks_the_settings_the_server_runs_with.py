"""What a hosted server refuses to start without (loreweaver/wire/deploy.py) is read as
the settings read it (base/env.py: names in any case, spaces dropped, a blank list
empty), never from the environment by another rule: a secret and host names the server
runs with let it start, and host names that come to none stop it. Real processes: the
hosted profile's `serve`, on Postgres and Redis."""

from __future__ import annotations

import urllib.request

import pytest

from loreweaver.testing.servers import TEST_SECRET_KEY, ServerEnv, create_env, destroy_env, start_serve


@pytest.fixture
def hosted(tmp_path):
    env = create_env(tmp_path, hosted=True)
    yield env
    destroy_env(env)


def test_a_secret_and_hosts_named_in_lower_case_let_a_hosted_server_start(hosted):
    # The same database and Redis, with the two variables in lower case only (the
    # helper's own environment names them in upper case).
    lower = ServerEnv(
        data_dir=hosted.data_dir,
        hosted=False,
        extra={
            "DATABASE_URL": hosted.database_url,
            "REDIS_URL": hosted.redis_url,
            "TRPG_REDIS_PREFIX": hosted.redis_prefix,
            "django_secret_key": TEST_SECRET_KEY,
            "django_allowed_hosts": "127.0.0.1",
        },
    )
    server = start_serve(lower, "--no-iroh")
    try:
        page = server.ws_url.replace("ws://", "http://")
        with urllib.request.urlopen(page, timeout=10) as answer:
            assert answer.status == 200, "the host named in lower case is served"
    finally:
        server.stop()


def test_host_names_that_come_to_none_stop_a_hosted_server(hosted):
    started = hosted.manage("serve", "--port", "0", "--no-iroh", DJANGO_ALLOWED_HOSTS=" , ")
    assert started.returncode != 0
    assert "DJANGO_ALLOWED_HOSTS is not set" in started.stderr and "will not start" in started.stderr
