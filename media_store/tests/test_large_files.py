"""A 100 MiB audio file round-trips on both carriers with its bytes intact, the
server's memory stays flat while it streams, and comes back once the file is stored.

Iroh streams a file in 64 KiB pieces both ways: the server's resident memory may grow
by a few buffers, never by the file. WebSocket carries a file as ONE binary message
(the protocol's framing): the WebSocket layer (autobahn, under daphne) gathers an
incoming message's frames and joins them, so an upload briefly costs about twice the
file; this server's own code adds no further copy (the body is hashed and spooled
from a view of that message). A download reads the file and autobahn frames it as one
message: about twice the file too, for as long as it is written.

The upload's message is let go as soon as it is stored. Channels' consumer loop kept
the last message it dispatched until the next one came, so a connection that uploaded
a file held it until its next frame; this one's loop does not (docs/performance.md,
"Less work per roll").
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import time

import psutil
import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.servers import hosted_profile

SIZE = 100 * 1024 * 1024


class PeakMemory:
    """Samples a process's resident memory in the background; `growth` is the peak
    above the level when sampling started."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.baseline = self.process.memory_info().rss
        self.peak = self.baseline
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth(self) -> int:
        return self.peak - self.baseline


@pytest.fixture(scope="module")
def big_file() -> bytes:
    return b"ID3\x04" + os.urandom(SIZE - 4)


# Memory and bytes do not depend on the database: one profile is enough.
@pytest.mark.skipif(hosted_profile(), reason="runs on the embedded profile")
@pytest.mark.parametrize("carrier", ["iroh", "ws"])
async def test_a_100_mib_file_round_trips_within_bounded_memory(media_server, room, carrier, big_file):
    async with await connect(carrier, media_server) as member:
        await member.join(media_server.env.mint(room, "Big"))
        server = psutil.Process(media_server.pid)
        before_upload = server.memory_info().rss
        with PeakMemory(media_server.pid) as put_memory:
            stored = await upload(member, big_file, "audio/mpeg", "long.mp3")
        # The stored reply may reach the client just before the server lets go of the
        # upload: wait for the server's memory to come back, a few seconds at most.
        deadline = time.monotonic() + 5
        while server.memory_info().rss > before_upload + 32 * 1024 * 1024:
            assert time.monotonic() < deadline, "the upload is still held after it was stored"
            await asyncio.sleep(0.02)
        with PeakMemory(media_server.pid) as get_memory:
            header, body = await get(member, stored["hash"])
    assert header["size"] == SIZE and hashlib.sha256(body).hexdigest() == sha(big_file)
    print(
        f"{carrier}: server RSS growth, PUT {put_memory.growth >> 20} MiB, GET {get_memory.growth >> 20} MiB"
    )
    if carrier == "iroh":
        assert put_memory.growth < 32 * 1024 * 1024 and get_memory.growth < 32 * 1024 * 1024
    else:
        assert put_memory.growth < 2.5 * SIZE and get_memory.growth < 2.5 * SIZE
