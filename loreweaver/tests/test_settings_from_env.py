"""Settings come from the environment; a bad value stops the start, naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    ],
)
def test_a_bad_value_fails_at_start_naming_the_variable(tmp_path, variable, value):
    result = _check(tmp_path, **{variable: value})
    assert result.returncode != 0
    assert variable in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("Configuration error:")


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
        "print(s.DATABASES['default']['ENGINE'], s.REDIS_URL,"
        " s.CACHES['default']['BACKEND'], s.STORAGES['default']['BACKEND'])"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRPG_")}
    clean.update(
        TRPG_DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://u:p@db:5432/table",
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
        "django.db.backends.postgresql",
        "redis://cache:6379/0",
        "django.core.cache.backends.redis.RedisCache",
        "storages.backends.s3.S3Storage",
    ], result.stderr
