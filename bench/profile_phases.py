"""Split a py-spy recording (collapsed stacks) of a server into the phases of a command:
inbound parse, the command (game code), the database, the bus, encoding, WebSocket
framing, logging, the turn queue and session, waiting, and the server's start.

    python bench/profile_phases.py /tmp/prof/head-server1.txt --commands 1800 --deliveries 10800

Each stack counts once, for the phase of its innermost frame that one of `PHASES`'
patterns names (so a `json.dumps` under the hub is encoding, an ORM query under a dice
roll is the database, the dice roll's own Python the command). With `--commands` and
`--deliveries`, the samples become CPU milliseconds per command and per delivery
(py-spy samples 250 times a second in `bench/fanout.py`).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

# (phase, patterns): a frame belongs to the first phase one of whose patterns it contains.
PHASES: list[tuple[str, tuple[str, ...]]] = [
    ("waiting", ("select (selectors.py", "_worker (concurrent", "Condition.wait")),
    ("start", ("<frozen importlib", "importlib/__init__.py", "django/apps/registry.py")),
    ("logging", ("logging/__init__.py", "base/logs.py")),
    ("database", ("django/db/", "sqlite3", "psycopg", "commits.py")),
    ("encoding", ("json/encoder.py", "encoded_for (", "encode (loreweaver/wire/seats.py")),
    ("inbound parse", ("protocol/inbound.py", "json/decoder.py", "pydantic")),
    ("websocket framing", ("autobahn/", "twisted/", "daphne/")),
    ("command", ("keeper/", "packs/", "rooms/", "base/frames.py")),
    ("bus", ("wire/hub.py", "wire/bus.py", "room_messages.py", "channels/layers")),
    ("turn queue, session", ("coordination.py", "stores.py", "session.py", "handlers.py", "turns.py")),
    ("event loop", ("asyncio/", "asgiref/", "channels/")),
]


def phases(recording: Path) -> tuple[Counter, int]:
    """(samples per phase, all samples)."""
    counted: Counter = Counter()
    total = 0
    for line in recording.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        samples = int(count)
        total += samples
        phase = "other"
        for frame in reversed(stack.split(";")):
            found = next((name for name, patterns in PHASES if any(p in frame for p in patterns)), None)
            if found is not None:
                phase = found
                break
        counted[phase] += samples
    return counted, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--commands", type=int, default=0, help="commands the run sent")
    parser.add_argument("--deliveries", type=int, default=0, help="frames the members received")
    parser.add_argument("--rate", type=int, default=250, help="py-spy's samples per second")
    args = parser.parse_args()
    counted, total = phases(args.recording)
    print(f"{total} samples")
    for name, samples in counted.most_common():
        row = f"  {100 * samples / total:5.1f}%  {name:22}"
        if args.commands:
            row += f"  {1000 * samples / args.rate / args.commands:6.3f} ms/command"
        if args.deliveries:
            row += f"  {1000 * samples / args.rate / args.deliveries:6.3f} ms/delivery"
        print(row)


if __name__ == "__main__":
    main()
