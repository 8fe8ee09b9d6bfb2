"""A room backup sent over HTTP as one archive (the console's download and the keeper
tab's), a piece at a time.

Django serves a synchronous iterator under ASGI by reading it whole into a list first,
so a file response would hold a whole backup in memory. Here each piece is read in a
worker thread and handed on as an asynchronous iterator: the server holds a piece at a
time, and, as the carrier waits for a slow reader to take what was sent
(`loreweaver.wire.server`), no more than that. The files are let go when Django closes
the response, which it does when the download ends and when the reader went away.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Generator

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header

from rooms import backups
from rooms.models import RoomBackup

log = logging.getLogger(__name__)


class BackupPieces:
    """A backup's pieces as an asynchronous iterator, each read in a worker thread.

    `close` may come from any thread while a piece is being read (a reader that went
    away cancels the wait, not the read): the read in flight then closes the files
    when it ends, since a generator cannot be closed while it runs.

    A download whose every byte was sent (`size`, when known) is whole, even when the
    reader hung up before the server looked for a piece after the last: a client that
    has all the bytes it was promised may close at once, and the server may hear of it
    first."""

    def __init__(self, chunks: Generator[bytes, None, None], name: str, size: int | None = None) -> None:
        self._chunks = chunks
        self._name = name
        self._size = size
        self._lock = threading.Lock()
        self._reading = self._closed = self._whole = False
        self._sent = 0

    def __aiter__(self) -> BackupPieces:
        return self

    async def __anext__(self) -> bytes:
        piece = await asyncio.to_thread(self._next)
        if piece is None:
            raise StopAsyncIteration
        self._sent += len(piece)
        return piece

    def _next(self) -> bytes | None:
        with self._lock:
            if self._closed:
                return None
            self._reading = True
        piece, ended = None, False
        try:
            piece = next(self._chunks, None)
            ended = piece is None
        finally:
            with self._lock:
                self._reading = False
                self._whole = ended
                closed_meanwhile = self._closed
            if closed_meanwhile:
                self._chunks.close()
        return piece

    def close(self) -> None:
        """Let go of the files (now, or when the piece being read is read)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            reading = self._reading
        if not reading:
            self._chunks.close()
        if self._whole or self._sent == self._size:
            log.info("backup %s downloaded (%d bytes)", self._name, self._sent)
        else:
            stopped = "backup %s: the download stopped after %d bytes (the reader went away)"
            log.info(stopped, self._name, self._sent)


class _BackupResponse(StreamingHttpResponse):
    def __init__(self, pieces: BackupPieces) -> None:
        super().__init__(pieces, content_type="application/zip")
        self._pieces = pieces

    def close(self) -> None:
        self._pieces.close()
        super().close()


def backup_download(backup: RoomBackup) -> StreamingHttpResponse:
    """The backup as one archive to download (`BackupError` when it cannot be read)."""
    download = backups.download(backup)
    response = _BackupResponse(BackupPieces(download.chunks, backup.path, download.size))
    response["Content-Disposition"] = content_disposition_header(True, download.filename)
    if download.size is not None:
        response["Content-Length"] = str(download.size)
    return response
