"""Summarize a py-spy recording (`--format raw`, collapsed stacks) as two tables: the
functions where samples were taken (self) and the functions on the stack (inclusive),
each as a share of all samples.

    python bench/profile_summary.py /tmp/prof/head-server1.txt [--top 40] [--match wire/]

`--match` keeps only functions whose file path contains the text (this project's own
code, say), which is where the costs to remove usually show.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

# "function (path/to/file.py:123)" -> "function (file.py)"; line numbers would split a
# function into one row per line sampled.
_FRAME = re.compile(r"^(?P<name>.*?) \((?P<path>[^:()]+)(?::\d+)?\)$")


def _label(frame: str) -> tuple[str, str]:
    match = _FRAME.match(frame)
    if match is None:
        return frame, ""
    path = match["path"]
    for marker in ("site-packages/", "lib/python3", "/work/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{match['name']} ({path})", path


def summarize(recording: Path) -> tuple[Counter, Counter, int]:
    """(self samples, inclusive samples, total samples) per function."""
    own: Counter = Counter()
    inclusive: Counter = Counter()
    total = 0
    for line in recording.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        total += samples
        frames = [_label(frame) for frame in stack.split(";") if frame]
        if not frames:
            continue
        own[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    return own, inclusive, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--match", default="", help="only functions whose path contains this")
    args = parser.parse_args()
    own, inclusive, total = summarize(args.recording)
    print(f"{total} samples")
    for title, table in (("self", own), ("inclusive", inclusive)):
        print(f"\n{title}:")
        rows = [(frame, n) for frame, n in table.most_common() if args.match in frame[1]]
        for (name, _path), samples in rows[: args.top]:
            print(f"  {100 * samples / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
