"""Servers for the media tests (`room` and `carrier` come from the root conftest)."""

from __future__ import annotations

from loreweaver.testing.servers import dedicated_server

# The default media limits.
media_server = dedicated_server()
# Small limits: 3 uploads a minute, 2000-byte images, 3000 bytes of images per room.
tight_server = dedicated_server(
    TRPG_MEDIA__UPLOADS_PER_MINUTE="3",
    TRPG_MEDIA__IMAGE_MAX_BYTES="2000",
    TRPG_MEDIA__IMAGE_ROOM_BYTES="3000",
)
