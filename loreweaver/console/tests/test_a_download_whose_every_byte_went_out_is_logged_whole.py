"""A backup download that sent every byte it promised is logged as downloaded, even when
the reader hung up before the server asked for a piece after the last (a client with
the whole Content-Length closes at once), and one cut short is logged as stopped
(docs/operations.md, "Backups")."""

from __future__ import annotations

import logging
from collections.abc import Generator

from loreweaver.console.downloads import BackupPieces

PIECES = [b"a" * 10, b"b" * 10, b"c" * 5]


def _chunks() -> Generator[bytes, None, None]:
    yield from PIECES


async def _take(pieces: BackupPieces, count: int) -> None:
    for _ in range(count):
        await anext(pieces)


async def test_a_reader_that_hangs_up_after_the_last_byte_had_the_whole_download(caplog):
    pieces = BackupPieces(_chunks(), "big.zip", size=25)
    await _take(pieces, len(PIECES))  # every piece went out; the server never asked again
    with caplog.at_level(logging.INFO, logger="loreweaver.console.downloads"):
        pieces.close()  # the reader hung up first
    assert "backup big.zip downloaded (25 bytes)" in caplog.text
    assert "stopped" not in caplog.text


async def test_a_reader_that_hangs_up_before_the_last_piece_stopped_the_download(caplog):
    pieces = BackupPieces(_chunks(), "big.zip", size=25)
    await _take(pieces, len(PIECES) - 1)
    with caplog.at_level(logging.INFO, logger="loreweaver.console.downloads"):
        pieces.close()
    assert "the download stopped after 20 bytes" in caplog.text
