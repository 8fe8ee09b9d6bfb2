"""Servers for the media tests (`room` and `carrier` come from the root conftest), and a
room for the audio desk's commands played in the test's own process."""

from __future__ import annotations

import secrets

import pytest

from keeper.commands import Caller
from loreweaver.testing.servers import dedicated_server
from media_store import services
from media_store.services import Uploader
from rooms.services import room_get_or_create

# The default media limits.
media_server = dedicated_server()
# Small limits: 3 uploads a minute, 2000-byte images, 3000 bytes of images per room.
tight_server = dedicated_server(
    TRPG_MEDIA__UPLOADS_PER_MINUTE="3",
    TRPG_MEDIA__IMAGE_MAX_BYTES="2000",
    TRPG_MEDIA__IMAGE_ROOM_BYTES="3000",
)


@pytest.fixture
def desk_room(db, settings, tmp_path) -> int:
    """A room of the test's own, its media stored under the test's folder: for the audio
    desk's commands, answered in-process by the game's dispatcher (keeper/commands.py)."""
    settings.DATA_DIR = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "media"},
        },
    }
    return room_get_or_create(name=f"desk-{secrets.token_hex(4)}").pk


def seat(room_id: int, name: str, *, keeper: bool = False, locale: str = "en") -> Caller:
    """A member of the room as the join stamps them (member ids as the wire makes them)."""
    return Caller(room_id, f"tui:{secrets.token_hex(4)}", name, keeper, locale)


def stored(room_id: int, data: bytes, mime: str, name: str) -> dict:
    """A file uploaded to the room by its keeper: its `audio_library_item` frame."""
    return services.store_bytes(
        Uploader(room_id, "tui:keeper00", "Kay"), name=name, mime=mime, data=data
    ).as_frame()
