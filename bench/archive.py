"""Backup archive benchmark: what downloading a room's backup costs the server's memory,
and whether the archive brings every file back on another server.

A room holds a media set (200 MiB in the full run, 20 MiB with --quick, in several
files of random bytes), uploaded through the server as a client does, and its keeper
exports it (`admin_export_room`): one archive. The server is restarted (so its memory
before is not what the uploads left behind), then the archive is downloaded over HTTP as
the keeper tab does (`GET /table/backups/<name>`), once as fast as the reader takes it
and once by a reader held to a slower rate (the server must wait for it, not buffer).
The server process's resident memory (RSS, psutil, sampled every few milliseconds) is
reported before and at its peak during each download, beside the same sampling while
the server is idle (the noise), and as a share of the archive's size. Then a second
server (its own data and database) restores the archive (`admin_import_room`), and every
file of the room is fetched from it by hash and compared with what was uploaded.

    python bench/archive.py            # full run (200 MiB)
    python bench/archive.py --quick    # 20 MiB (the CI run)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loreweaver.testing.backups import http_base  # noqa: E402
from loreweaver.testing.clients import WsClient  # noqa: E402
from loreweaver.testing.media_clients import get, upload  # noqa: E402
from loreweaver.testing.servers import (  # noqa: E402
    ServerEnv,
    ServerProcess,
    backup_folder,
    create_env,
    destroy_env,
    hosted_profile,
    start_serve,
)

MIB = 1024 * 1024
LIMIT = 64 * MIB  # the peak RSS growth a download should stay under
SAMPLE_EVERY = 0.005
ROOM = "bench-archive"
SERVER_ENV = {"TRPG_RATE__BURST": "100000", "TRPG_MEDIA__UPLOADS_PER_MINUTE": "1000"}


class RssPeak:
    """The peak resident memory of a process while it runs (sampled in a thread)."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(SAMPLE_EVERY)

    def __enter__(self) -> RssPeak:
        self.peak = self.process.memory_info().rss
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def settled_rss(server: ServerProcess) -> int:
    """The server's RSS once it has been idle a moment (the lowest of a second's samples)."""
    samples = []
    for _ in range(20):
        samples.append(server.rss())
        time.sleep(0.05)
    return min(samples)


def download(server: ServerProcess, key: str, name: str, target: Path, rate: float | None) -> float:
    """Download the backup `name` as the keeper tab does, reading at most `rate` MiB/s
    (None: as fast as it comes); seconds taken."""
    request = urllib.request.Request(
        f"{http_base(server)}/table/backups/{name}", headers={"Authorization": f"Bearer {key}"}
    )
    piece = 256 * 1024
    start = time.perf_counter()
    read = 0
    with urllib.request.urlopen(request, timeout=600) as answer, target.open("wb") as sink:
        while data := answer.read(piece):
            sink.write(data)
            read += len(data)
            if rate:  # hold the reader to its rate: sleep until the bytes read are due
                due = start + read / (rate * MIB)
                time.sleep(max(0.0, due - time.perf_counter()))
    return time.perf_counter() - start


def measured(server: ServerProcess, work: Callable[[], float]) -> tuple[int, int, float]:
    """(RSS before, peak RSS during, seconds) of `work` on the server."""
    before = settled_rss(server)
    with RssPeak(server.pid) as peak:
        seconds = work()
    return before, peak.peak, seconds


async def fill_the_room(server: ServerProcess, key: str, files: list[bytes]) -> str:
    """Upload `files` into the room and export it; the archive's name."""
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(key)
        await keeper.say(".bot off")
        await keeper.expect("narrative", speaker="system")
        for n, data in enumerate(files):
            await upload(keeper, data, "audio/mpeg", f"track-{n}.mp3")
        await keeper.send({"type": "admin_export_room", "room": ROOM, "path": "travelling"})
        written = await keeper.expect("admin_room_op", timeout=600)
    assert written["media_files"] == len(files), written
    return written["path"]


async def restore(server: ServerProcess, env: ServerEnv, name: str) -> float:
    """A keeper of the room on `server` restores the backup `name`; seconds taken."""
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(env.mint(ROOM, "Importer", "keeper"))
        start = time.perf_counter()
        await keeper.send({"type": "admin_import_room", "path": name})
        restored = await keeper.expect("admin_room_op", timeout=600)
        assert restored["action"] == "import", restored
        return time.perf_counter() - start


async def fetch_every_file(server: ServerProcess, env: ServerEnv) -> dict[str, str]:
    """Every file of the room, fetched by its hash: the sha256 of what came, by that hash."""
    async with await WsClient.connect(server.ws_url) as member:
        frames = await member.join(env.mint(ROOM, "Reader"))
        hashes = [f["hash"] for f in frames if f["type"] in ("media", "audio_library_item")]
        fetched = {}
        for digest in hashes:
            _header, data = await get(member, digest)
            fetched[digest] = hashlib.sha256(data).hexdigest()
    return fetched


def line(label: str, before: int, peak: int, size: int, seconds: float) -> None:
    growth = peak - before
    print(
        f"  {label:34s} RSS before {before / MIB:6.1f} MiB  peak {peak / MIB:6.1f} MiB  "
        f"growth {growth / MIB:5.1f} MiB ({growth / size:.1%} of the archive)  "
        f"{size / MIB / seconds:6.1f} MiB/s  (under {LIMIT // MIB} MiB: {'yes' if growth < LIMIT else 'NO'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 MiB of media (CI)")
    parser.add_argument("--slow-rate", type=float, default=40.0, help="the slow reader's MiB/s (40)")
    args = parser.parse_args()
    megabytes, count = (20, 4) if args.quick else (200, 8)
    files = [b"ID3\x04" + os.urandom(megabytes * MIB // count - 4) for _ in range(count)]
    uploaded = {hashlib.sha256(data).hexdigest() for data in files}
    base = Path(tempfile.mkdtemp(prefix="archive-"))
    first = create_env(base / "first", hosted=hosted_profile())
    second = create_env(base / "second", hosted=hosted_profile())
    try:
        server = start_serve(first, "--no-iroh", **SERVER_ENV)
        key = first.mint(ROOM, "Keeper", "keeper")
        try:
            name = asyncio.run(fill_the_room(server, key, files))
        finally:
            server.stop()
        archive = backup_folder(first, ROOM) / name
        size = archive.stat().st_size

        server = start_serve(first, "--no-iroh", **SERVER_ENV)  # memory as after a start
        try:
            target = base / name
            idle = measured(server, lambda: time.sleep(2.0) or 2.0)
            fast = measured(server, lambda: download(server, key, name, target, None))
            slow = measured(server, lambda: download(server, key, name, target, args.slow_rate))
        finally:
            server.stop()
        assert target.read_bytes() == archive.read_bytes(), "the download is the archive"

        (second.data_dir / "room_backups").mkdir(exist_ok=True)
        shutil.copy(target, second.data_dir / "room_backups" / name)
        other = start_serve(second, "--no-iroh", **SERVER_ENV)
        try:
            before = settled_rss(other)
            with RssPeak(other.pid) as restore_peak:
                restore_seconds = asyncio.run(restore(other, second, name))
            fetched = asyncio.run(fetch_every_file(other, second))
        finally:
            other.stop()
    finally:
        destroy_env(first)
        destroy_env(second)
        shutil.rmtree(base, ignore_errors=True)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, files on disk)"
    print(f"archive: a room of {megabytes} MiB of media ({count} files), its backup {size / MIB:.1f} MiB")
    print(f"  profile {profile}")
    noise = f"RSS before {idle[0] / MIB:6.1f} MiB  peak {idle[1] / MIB:6.1f} MiB"
    print(f"  {'idle, the same sampling (noise)':34s} {noise}")
    line("download, reader as fast as it can", fast[0], fast[1], size, fast[2])
    line(f"download, reader at {args.slow_rate:.0f} MiB/s", slow[0], slow[1], size, slow[2])
    intact = sum(1 for digest, seen in fetched.items() if digest == seen and digest in uploaded)
    print(
        f"  {'restore on a second server':34s} RSS before {before / MIB:6.1f} MiB  peak "
        f"{restore_peak.peak / MIB:6.1f} MiB  growth {(restore_peak.peak - before) / MIB:5.1f} MiB  "
        f"{size / MIB / restore_seconds:6.1f} MiB/s"
    )
    verdict = "yes" if intact == len(uploaded) == len(fetched) else "NO"
    print(f"  media hashes intact after the restore: {intact} of {len(uploaded)} ({verdict})")


if __name__ == "__main__":
    main()
