"""Packs on a fresh media storage of their own, and the example pack built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve
from packs import lwpack

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "harbour-clues"


@pytest.fixture
def media_root(tmp_path, settings) -> Path:
    root = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": root}},
    }
    return root


@pytest.fixture(scope="session")
def example_pack() -> bytes:
    return lwpack.build(EXAMPLE)


@pytest.fixture(scope="module")
def panel_server(tmp_path_factory):
    """A fresh server: it installs the example pack at its first start."""
    env = create_env(tmp_path_factory.mktemp("panels"), hosted=hosted_profile())
    process = start_serve(env)
    yield process
    process.stop()
    destroy_env(env)


# The scripted Keeper's server with packs of hooks (packs/tests/hook_table.py).
from packs.tests.hook_table import hook_llm, hook_table  # noqa: E402, F401
