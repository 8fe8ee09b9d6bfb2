"""Packs on a fresh media storage of their own, and the example pack built once."""

from __future__ import annotations

from pathlib import Path

import pytest

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
