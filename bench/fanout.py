"""Fan-out benchmark: rooms of 6 members broadcasting over WebSocket.

The rooms' keepers have turned the Keeper bot off (`.bot off`), so every line is a
player's story line and nothing else. Runs the same workload against this server
(`manage.py serve`, WebSocket only) and against a minimal broadcast server written
with the raw `websockets` library (started here, in its own process: it relays each
text message to the sender's room and does nothing else). Prints delivered story lines
per second for both and their ratio; the baseline is measured in the same run, so the
ratio is what to compare across machines.

    python bench/fanout.py            # full run
    python bench/fanout.py --quick    # the short run CI does
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve  # noqa: E402

MEMBERS = 6

RAW_SERVER = r"""
import asyncio, json, sys
import websockets

rooms = {}

async def handle(socket):
    join = json.loads(await socket.recv())
    members = rooms.setdefault(join["key"].split("/")[0], set())
    members.add(socket)
    await socket.send(json.dumps({"type": "welcome"}))
    try:
        async for message in socket:
            frame = json.loads(message)
            line = json.dumps({"type": "narrative", "speaker": "player", "text": frame["text"]})
            websockets.broadcast(members, line)
    finally:
        members.discard(socket)

async def main():
    async with websockets.serve(handle, "127.0.0.1", 0, max_queue=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


async def run_workload(url: str, keys_by_room: list[list[str]], lines: int) -> tuple[int, float]:
    """Every member says `lines` lines, each once its previous one came back (as a
    person at a keyboard would, only faster); returns (story lines delivered, seconds)."""
    sockets = []
    for keys in keys_by_room:
        for key in keys:
            socket = await websockets.connect(url, max_size=None, max_queue=None)
            await socket.send(json.dumps({"type": "join", "key": key}))
            while json.loads(await socket.recv())["type"] != "welcome":
                pass
            sockets.append(socket)
    expected_each = MEMBERS * lines
    delivered = 0
    own_line_back: dict[int, asyncio.Queue] = {i: asyncio.Queue() for i in range(len(sockets))}

    async def read(socket: websockets.ClientConnection, member: int) -> None:
        nonlocal delivered
        seen = 0
        while seen < expected_each:
            frame = json.loads(await socket.recv())
            if frame["type"] == "narrative" and frame.get("speaker") == "player":
                seen += 1
                if frame["text"].startswith(f"member {member} "):
                    own_line_back[member].put_nowait(True)
        delivered += seen

    async def talk(socket: websockets.ClientConnection, member: int) -> None:
        for n in range(lines):
            await socket.send(json.dumps({"type": "input", "text": f"member {member} line {n}"}))
            await own_line_back[member].get()

    start = time.perf_counter()
    readers = [asyncio.create_task(read(s, i)) for i, s in enumerate(sockets)]
    await asyncio.gather(*(talk(s, i) for i, s in enumerate(sockets)))
    await asyncio.wait_for(asyncio.gather(*readers), 600)
    elapsed = time.perf_counter() - start
    for socket in sockets:
        await socket.close()
    return delivered, elapsed


async def human_keepers(url: str, keeper_keys: list[str]) -> None:
    """Each room's keeper turns the Keeper bot off (`.bot off`): the workload is the
    players' story lines, with no Keeper turns between them."""
    for key in keeper_keys:
        async with websockets.connect(url) as socket:
            await socket.send(json.dumps({"type": "join", "key": key}))
            while json.loads(await socket.recv())["type"] != "ui_manifest":
                pass
            await socket.send(json.dumps({"type": "input", "text": ".bot off"}))
            while json.loads(await socket.recv()).get("speaker") != "system":
                pass


def start_raw_server() -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-c", RAW_SERVER], stdout=subprocess.PIPE, text=True)
    port = process.stdout.readline().strip()
    return process, f"ws://127.0.0.1:{port}/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--rooms", type=int, help="rooms of 6 members")
    parser.add_argument("--lines", type=int, help="lines each member says")
    args = parser.parse_args()
    rooms = args.rooms or (2 if args.quick else 10)
    lines = args.lines or (10 if args.quick else 40)

    env = create_env(Path(tempfile.mkdtemp(prefix="fanout-")), hosted=hosted_profile())
    try:
        keys_by_room = [[env.mint(f"bench-{r}", f"m{m}") for m in range(MEMBERS)] for r in range(rooms)]
        keeper_keys = [env.mint(f"bench-{r}", "host", "keeper") for r in range(rooms)]
        server = start_serve(env, "--no-iroh")
        try:
            asyncio.run(human_keepers(server.ws_url, keeper_keys))
            ours, ours_seconds = asyncio.run(run_workload(server.ws_url, keys_by_room, lines))
        finally:
            server.stop()
    finally:
        destroy_env(env)

    raw, raw_url = start_raw_server()
    try:
        raw_keys = [[f"bench-{r}/m{m}" for m in range(MEMBERS)] for r in range(rooms)]
        baseline, baseline_seconds = asyncio.run(run_workload(raw_url, raw_keys, lines))
    finally:
        raw.terminate()
        raw.wait(10)

    ours_rate = ours / ours_seconds
    baseline_rate = baseline / baseline_seconds
    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, in-process layer)"
    print(f"fan-out: {rooms} rooms x {MEMBERS} members x {lines} lines each, profile {profile}")
    for label, count, seconds, rate in [
        ("loreweaver-django", ours, ours_seconds, ours_rate),
        ("raw websockets", baseline, baseline_seconds, baseline_rate),
    ]:
        print(f"  {label:18}: {count:7d} lines delivered in {seconds:6.2f} s = {rate:9.0f} lines/s")
    print(f"  ratio (ours / raw): {ours_rate / baseline_rate:.3f}")


if __name__ == "__main__":
    main()
