"""The room's stored lines, for the group commit's tests (read apart from the turns)."""

from __future__ import annotations

from django.db import connection

from rooms.models import TranscriptEntry


def stored_texts() -> list[str]:
    """Every stored line's text, oldest first, read on this thread's own connection
    (closed after, so the test database can be dropped at the end of the run). Run it on
    another thread than the turns' (`asyncio.to_thread`): what it reads is committed."""
    try:
        return list(TranscriptEntry.objects.order_by("id").values_list("text", flat=True))
    finally:
        connection.close()
