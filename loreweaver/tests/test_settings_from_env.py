"""Settings come from the environment; a bad value stops the start, naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from base.env import DjangoEnv, HostEnv, TableEnv, read_env

ROOT = Path(__file__).resolve().parents[2]


def _check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TRPG_", "DATABASE_URL", "REDIS_URL"))}
    clean.update(TRPG_DATA_DIR=str(tmp_path / "data"), **env)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TRPG_TUI__JOIN_TIMEOUT", "soon"),
        ("TRPG_TUI__JOIN_TIMEOUT", "-1"),
        ("TRPG_TUI__CROWDED_JOIN_TIMEOUT", "-1"),
        ("TRPG_TUI__MAX_CONNECTIONS", "lots"),
        ("TRPG_TUI__MAX_CONNECTIONS", "0"),
        ("TRPG_LOCALE", "fr"),
        ("TRPG_OFFLINE__STREAM_PAUSE", "-1"),
        ("TRPG_SIDEQUEST__CLIENT", "future"),
        ("TRPG_IROH__RELAY", "maybe"),
        ("DATABASE_URL", "mysql://db/table"),
        ("REDIS_URL", "localhost:6379"),
        ("MEDIA_STORAGE", "ftp"),
        ("DJANGO_DEBUG", "perhaps"),
        ("TRPG_RATE__BURST", "0"),
        ("TRPG_TRUSTED_PROXIES", "10.0.0.5, the-proxy"),
        ("TRPG_METRICS_ALLOWED", "127.0.0.1, localhost"),
        ("TRPG_PACKS__BUNDLED", "sometimes"),
        ("TRPG_DB__POOL_SIZE", "0"),
        ("TRPG_DB__POOL_TIMEOUT", "forever"),
    ],
)
def test_a_bad_value_fails_at_start_naming_the_variable(tmp_path, variable, value):
    result = _check(tmp_path, **{variable: value})
    assert result.returncode != 0
    assert variable in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("Configuration error:")


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("TRPG_LOCALE", "fr", "TRPG_LOCALE='fr' should be 'en' or 'zh'"),
        (
            "TRPG_TUI__MAX_CONNECTIONS",
            "0",
            "TRPG_TUI__MAX_CONNECTIONS='0' should be greater than or equal to 1",
        ),
        ("TRPG_OFFLINE__STREAM_PAUSE", "soon", "TRPG_OFFLINE__STREAM_PAUSE='soon' should be a valid number"),
        (
            "DJANGO_DEBUG",
            "perhaps",
            "DJANGO_DEBUG='perhaps' is not a switch; use 1/0, true/false, yes/no or on/off",
        ),
        ("REDIS_URL", "localhost:6379", "REDIS_URL='localhost:6379' must be a URL starting with redis://"),
        ("TRPG_TRUSTED_PROXIES", "10.0.0.5,x", "names 'x', which is not an address or a network"),
        (
            "TRPG_METRICS_ALLOWED",
            "10.0.0.0/8,prometheus",
            "TRPG_METRICS_ALLOWED='10.0.0.0/8,prometheus' names 'prometheus', which is not an address",
        ),
    ],
)
def test_a_bad_values_message_says_what_the_variable_expected(monkeypatch, variable, value, expected):
    monkeypatch.setenv(variable, value)
    kind = DjangoEnv if variable.startswith("DJANGO_") else HostEnv if "_URL" in variable else TableEnv
    with pytest.raises(ImproperlyConfigured) as refused:
        read_env(kind)
    assert expected in str(refused.value)


def test_blank_values_read_as_the_old_readers_did(monkeypatch):
    for variable in (
        "TRPG_TUI__MAX_CONNECTIONS",
        "TRPG_OFFLINE__STREAM_PAUSE",
        "TRPG_LOCALE",
        "TRPG_PACKS__BUNDLED",
    ):
        monkeypatch.setenv(variable, "")
    monkeypatch.setenv("TRPG_TUI__JOIN_TIMEOUT", " 2.5 ")
    monkeypatch.setenv("TRPG_LLM__ALLOWED_ENDPOINTS", "http://10.0.0.5:8000/v1, *.example.org,")
    table = read_env(TableEnv)
    assert (table.tui.max_connections, table.offline.stream_pause, table.locale) == (200, 0.01, "en")
    assert table.packs.bundled is False  # a blank switch is off, as before
    assert table.tui.join_timeout == 2.5
    assert table.llm.allowed_endpoints == ["http://10.0.0.5:8000/v1", "*.example.org"]


def test_s3_storage_needs_a_bucket(tmp_path):
    result = _check(tmp_path, MEDIA_STORAGE="s3")
    assert result.returncode != 0 and "AWS_STORAGE_BUCKET_NAME" in result.stderr


def test_the_embedded_default_needs_nothing_but_a_data_dir(tmp_path):
    result = _check(tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "secret_key").exists()


def test_the_hosted_profile_reads_database_redis_and_s3(tmp_path):
    script = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['OPTIONS']['pool']['max_size'],"
        " s.REDIS_URL,"
        " s.CACHES['default']['BACKEND'], s.STORAGES['default']['BACKEND'])"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRPG_")}
    clean.update(
        TRPG_DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://u:p@db:5432/table",
        TRPG_DB__POOL_SIZE="7",
        REDIS_URL="redis://cache:6379/0",
        MEDIA_STORAGE="s3",
        AWS_STORAGE_BUCKET_NAME="media",
        DJANGO_SETTINGS_MODULE="loreweaver.settings",
    )
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup();" + script],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split() == [
        "base.database",  # Django's Postgres backend with this server's pool (base/database/)
        "7",
        "redis://cache:6379/0",
        "django.core.cache.backends.redis.RedisCache",
        "storages.backends.s3.S3Storage",
    ], result.stderr


def _database_options(tmp_path: Path, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRPG_")}
    clean.update(
        TRPG_DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://u:p@db:5432/table",
        DJANGO_SETTINGS_MODULE="loreweaver.settings",
        **env,
    )
    script = (
        "import django; django.setup(); from django.conf import settings as s;"
        "o = s.DATABASES['default']['OPTIONS'];"
        "print(o.get('server_side_binding'), o.get('prepare_threshold'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_postgres_prepares_repeated_statements_unless_a_pooler_forbids_it(tmp_path):
    assert _database_options(tmp_path) == "True 5"
    assert _database_options(tmp_path, TRPG_DB__PREPARED="off") == "None None"
