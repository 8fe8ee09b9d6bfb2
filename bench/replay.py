"""Join replay at size: how long a join takes in a room with a long history.

Two rooms on one server: a small one (100 story lines, 20 dice/NPC events) and a large
one (10,000 lines, 2,000 events, spread over the story). A member joins each room over
and over; the time measured is from sending `join` to the last replay frame (the
`state` that follows the replay), p50 and p99. The small room is the baseline measured
in the same run: the ratio large / small says whether a join's cost grows with the
room's history (it should not: the replay is the last 30 lines with their events,
read through indexes, one query each).

    python bench/replay.py            # full run
    python bench/replay.py --quick    # the short run CI does
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import percentile  # noqa: E402
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve  # noqa: E402

# Runs in `manage.py shell` against the bench's database: a room with `lines` story
# lines and `events` dice/NPC events anchored among them (bulk inserts: this is setup).
FILL = """
from rooms.models import Room, TranscriptEntry, TurnEvent, Audience
room, _ = Room.objects.get_or_create(name={room!r})
entries = TranscriptEntry.objects.bulk_create(
    TranscriptEntry(room=room, frame_id=f"{room_tag}-{{n}}", speaker="player", name="Pat",
                    member_id="tui:00000000", text=f"line {{n}} of a long evening")
    for n in range({lines})
)
entries = list(TranscriptEntry.objects.filter(room=room).order_by("id").values_list("id", flat=True))
step = max(1, len(entries) // {events})
TurnEvent.objects.bulk_create(
    TurnEvent(room=room, anchor_id=entries[(n * step) % len(entries)],
              frame={{"type": "dice", "actor": "Pat", "kind": "roll", "expr": "1d6",
                     "rolls": [3], "total": 3}},
              audience=Audience.EVERYONE if n % 4 else Audience.KEEPERS, member_id="")
    for n in range({events})
)
print(len(entries))
"""


def fill(env, room: str, lines: int, events: int) -> None:
    code = FILL.format(room=room, room_tag=room.replace(" ", "-"), lines=lines, events=events)
    result = env.manage("shell", "-c", code)
    if result.returncode != 0:
        raise RuntimeError(result.stderr)


async def join_times(url: str, key: str, joins: int) -> list[float]:
    """Seconds from `join` to the `state` after the replay, for `joins` joins."""
    times = []
    for _ in range(joins):
        async with websockets.connect(url, max_size=None) as socket:
            start = time.perf_counter()
            await socket.send(json.dumps({"type": "join", "key": key}))
            replayed = 0
            while True:
                frame = json.loads(await socket.recv())
                if frame["type"] in ("narrative", "dice"):
                    replayed += 1
                if frame["type"] == "state":
                    break
            times.append(time.perf_counter() - start)
            if replayed == 0:
                raise RuntimeError("the join replayed nothing")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    args = parser.parse_args()
    joins = 20 if args.quick else 200
    sizes = {"small": (100, 20), "large": (10_000, 2_000)}

    env = create_env(Path(tempfile.mkdtemp(prefix="replay-")), hosted=hosted_profile())
    try:
        for name, (lines, events) in sizes.items():
            fill(env, f"replay-{name}", lines, events)
        keys = {name: env.mint(f"replay-{name}", "Pat") for name in sizes}
        server = start_serve(env, "--no-iroh")
        try:

            async def measure() -> dict[str, list[float]]:
                results: dict[str, list[float]] = {name: [] for name in sizes}
                await join_times(server.ws_url, keys["small"], 3)  # warm up
                # Alternate, so drift on the machine falls on both alike.
                for _ in range(4):
                    for name in sizes:
                        results[name] += await join_times(server.ws_url, keys[name], joins // 4)
                return results

            results = asyncio.run(measure())
        finally:
            server.stop()
    finally:
        destroy_env(env)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, in-process bus)"
    print(f"join replay: {joins} joins per room, profile {profile}")
    for name, (lines, events) in sizes.items():
        times = results[name]
        print(
            f"  {name:6} ({lines:6,d} lines, {events:5,d} events): join to last replay frame "
            f"p50 {percentile(times, 0.5) * 1000:6.1f} ms  p99 {percentile(times, 0.99) * 1000:6.1f} ms"
        )
    ratio = percentile(results["large"], 0.5) / percentile(results["small"], 0.5)
    print(f"  ratio large / small (p50): {ratio:.2f}")


if __name__ == "__main__":
    main()
