"""A room backup sent over HTTP as one archive (the console's download and the keeper
tab's), a piece at a time.

Django serves a synchronous iterator under ASGI by reading it whole into a list first,
so a file response would hold a whole backup in memory. Here each piece is read in a
worker thread and handed on as an asynchronous iterator: the server holds a piece at a
time, and, as the carrier waits for a slow reader to take what was sent
(`loreweaver.wire.server`), no more than that.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

from rooms import backups
from rooms.models import RoomBackup

_END = object()  # what `next` answers once every piece is read


async def _in_worker_threads(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    loop = asyncio.get_running_loop()
    reading: asyncio.Future | None = None
    try:
        while True:
            reading = loop.run_in_executor(None, next, chunks, _END)
            piece = await reading
            if piece is _END:
                return
            yield piece
    finally:
        # A reader that went away: let the piece being read finish before the files
        # are closed (a generator cannot be closed while it runs in another thread).
        if reading is not None and not reading.done():
            with contextlib.suppress(BaseException):
                await asyncio.wait([reading])
        close = getattr(chunks, "close", None)
        if close is not None:
            await loop.run_in_executor(None, close)


def backup_download(backup: RoomBackup) -> StreamingHttpResponse:
    """The backup as one archive to download (`BackupError` when it cannot be read)."""
    download = backups.download(backup)
    response = StreamingHttpResponse(_in_worker_threads(download.chunks), content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, download.filename)
    if download.size is not None:
        response["Content-Length"] = str(download.size)
    return response
