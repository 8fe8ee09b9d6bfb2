"""Export benchmark: what a room's backup costs the other rooms of the server.

Room A holds a media set (200 MiB in the full run, 20 MiB with --quick), uploaded
through the server as a client does; a member of room B rolls `.r 1d6` again and
again (input to reply). B's roll latency, p50 and p99, is measured without any export
(the baseline, in the same run), then while A's keeper runs `admin_export_room` back
to back, then while A's keeper runs `.save` back to back. Prints the ratio p99 during /
p99 without for each, and whether it is under 3x (the export copies every blob of the
room, but outside any transaction and off the database thread, so B's turns go on).

    python bench/export.py            # full run (200 MiB)
    python bench/export.py --quick    # 20 MiB (the CI run)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import percentile  # noqa: E402
from loreweaver.testing.clients import WsClient  # noqa: E402
from loreweaver.testing.media_clients import upload  # noqa: E402
from loreweaver.testing.servers import (  # noqa: E402
    ServerEnv,
    backup_folder,
    create_env,
    destroy_env,
    hosted_profile,
    start_serve,
)

MIB = 1024 * 1024
UNDER = 3.0  # the ratio p99 during / p99 without that the run reports against


async def roll(member: WsClient) -> float:
    """One `.r 1d6`, input to its reply (seconds); the closing state is read too."""
    start = time.perf_counter()
    await member.say(".r 1d6")
    await member.expect("narrative", speaker="system")
    elapsed = time.perf_counter() - start
    await member.expect("state")
    return elapsed


async def admin_export(keeper: WsClient, room: str) -> None:
    """One `admin_export_room` of `room`, to its answer."""
    await keeper.send({"type": "admin_export_room", "room": room})
    answer = await keeper.expect("admin_room_op", timeout=600)
    assert answer["action"] == "export", answer


async def save(keeper: WsClient, room: str) -> None:
    """One `.save`, to its "Saved as" answer (the first reply says it is under way)."""
    await keeper.say(".save")
    while True:
        said = await keeper.expect("narrative", speaker="system", timeout=600)
        if said["text"].startswith("Saved as"):
            return
        assert said["text"].startswith("Saving"), said


async def rolls_during(
    member: WsClient,
    keeper: WsClient,
    room: str,
    backup: Callable[[WsClient, str], Awaitable[None]],
    wanted: int,
    env: ServerEnv,
) -> tuple[list[float], int, float]:
    """Roll until `wanted` rolls started while a backup of `room` ran (backups back to
    back); (their latencies, how many backups, seconds the backups took)."""
    times: list[float] = []
    running = asyncio.Event()
    done = asyncio.Event()
    backups, busy = 0, 0.0

    async def back_up_again_and_again() -> None:
        nonlocal backups, busy
        while not done.is_set():
            start = time.perf_counter()
            running.set()
            await backup(keeper, room)
            running.clear()
            busy += time.perf_counter() - start
            backups += 1

    worker = asyncio.create_task(back_up_again_and_again())
    try:
        while len(times) < wanted:
            await running.wait()
            elapsed = await roll(member)
            if running.is_set():  # the whole roll fell inside a backup
                times.append(elapsed)
        done.set()
        await worker
    finally:
        worker.cancel()
    # Removed once measured: deleting a few hundred MiB takes this client's loop a while.
    shutil.rmtree(backup_folder(env, room), ignore_errors=True)
    return times, backups, busy


async def measure(env: ServerEnv, url: str, files: list[bytes], rolls: int) -> dict:
    room_a, room_b = "bench-export-a", "bench-export-b"
    async with (
        await WsClient.connect(url) as keeper,
        await WsClient.connect(url) as member,
    ):
        await keeper.join(env.mint(room_a, "Keeper", "keeper"))
        await keeper.say(".bot off")  # a human keeper: `.save` and lines need no model
        await keeper.expect("narrative", speaker="system")
        for n, data in enumerate(files):
            await upload(keeper, data, "audio/mpeg", f"track-{n}.mp3")
        await member.join(env.mint(room_b, "Bo"))
        for _ in range(10):  # warm up
            await roll(member)
        without = [await roll(member) for _ in range(rolls)]
        exporting = await rolls_during(member, keeper, room_a, admin_export, rolls, env)
        saving = await rolls_during(member, keeper, room_a, save, rolls, env)
    return {"without": without, "admin_export_room": exporting, ".save": saving}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 MiB of media (CI)")
    parser.add_argument("--rolls", type=int, help="rolls measured in each phase (200; --quick: 60)")
    args = parser.parse_args()
    megabytes, count = (20, 2) if args.quick else (200, 4)
    rolls = args.rolls or (60 if args.quick else 200)
    files = [b"ID3\x04" + os.urandom(megabytes * MIB // count - 4) for _ in range(count)]

    env = create_env(Path(tempfile.mkdtemp(prefix="export-")), hosted=hosted_profile())
    server = start_serve(env, "--no-iroh", TRPG_RATE__BURST="100000", TRPG_MEDIA__UPLOADS_PER_MINUTE="1000")
    try:
        results = asyncio.run(measure(env, server.ws_url, files, rolls))
    finally:
        server.stop()
        destroy_env(env)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, files on disk)"
    print(f"export: room A holds {megabytes} MiB of media ({count} files); room B rolls .r 1d6")
    print(f"  profile {profile}")
    without = results["without"]
    base_p99 = percentile(without, 0.99)
    print(
        f"  {'without a backup':24s} p50 {percentile(without, 0.5) * 1000:7.1f} ms"
        f"  p99 {base_p99 * 1000:7.1f} ms  ({len(without)} rolls)"
    )
    for label in ("admin_export_room", ".save"):
        times, backups, busy = results[label]
        p99 = percentile(times, 0.99)
        ratio = p99 / base_p99 if base_p99 else 0.0
        rate = backups * megabytes / busy if busy else 0.0
        print(
            f"  {'during ' + label:24s} p50 {percentile(times, 0.5) * 1000:7.1f} ms"
            f"  p99 {p99 * 1000:7.1f} ms  ({len(times)} rolls, {backups} backups at {rate:.0f} MiB/s)"
        )
        verdict = "yes" if ratio < UNDER else "NO"
        print(f"  ratio p99 during {label} / without: {ratio:.2f} (under {UNDER:.0f}x: {verdict})")


if __name__ == "__main__":
    main()
