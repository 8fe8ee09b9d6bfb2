"""What the benchmarks share: percentiles, CPU accounting of every process involved,
another revision's checkout to run side by side, a profiler to run a server under, and
a member rolling dice beside a load.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

import psutil

from loreweaver.testing.clients import WsClient

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of `values` lie (nearest rank); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def rolls(url: str, key: str, count: int = 0, until: threading.Event | None = None) -> list[float]:
    """A member's `.r 1d6` round trips (input to its `dice` frame), in seconds: `count`
    of them, or as many as fit until `until` is set."""
    async with await WsClient.connect(url) as member:
        await member.join(key)
        times: list[float] = []
        while not until.is_set() if until is not None else len(times) < count:
            started = time.perf_counter()
            await member.say(".r 1d6")
            await member.expect("dice", timeout=60)
            times.append(time.perf_counter() - started)
        return times


def _cpu_seconds(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system


@dataclass
class CpuMeter:
    """CPU seconds spent by named groups of processes between `start` and `stop`.

    Servers are named by pid; Postgres and Redis by process name (every backend of the
    machine's Postgres counts, so run nothing else meanwhile). A process that ends
    meanwhile counts up to its last sample.
    """

    pids: dict[str, list[int]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    _before: dict[tuple[str, int], float] = field(default_factory=dict)
    _after: dict[tuple[str, int], float] = field(default_factory=dict)

    def _sample(self) -> dict[tuple[str, int], float]:
        sample = {}
        for part, pids in self.pids.items():
            for pid in pids:
                with contextlib.suppress(psutil.Error):
                    sample[(part, pid)] = _cpu_seconds(psutil.Process(pid))
        if self.names:
            for process in psutil.process_iter(["name"]):
                part = self.names.get(process.info["name"] or "")
                if part is not None:
                    sample[(part, process.pid)] = _cpu_seconds(process)
        return sample

    def start(self) -> None:
        self._before = self._sample()

    def stop(self) -> dict[str, float]:
        """CPU seconds per part since `start`."""
        self._after = self._sample()
        spent: dict[str, float] = {}
        for (part, pid), after in self._after.items():
            spent[part] = spent.get(part, 0.0) + after - self._before.get((part, pid), 0.0)
        return spent


def services_meter(hosted: bool, servers: dict[str, list[int]]) -> CpuMeter:
    """A meter of the server processes, and of Postgres and Redis on the hosted profile."""
    names = {"postgres": "postgres", "redis-server": "redis"} if hosted else {}
    return CpuMeter(pids=dict(servers), names=names)


def checkout(revision: str) -> Path:
    """The tree of `revision` of this repository, unpacked once under the temporary
    folder (no worktree, nothing written to the repository)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    target = Path(tempfile.gettempdir()) / f"loreweaver-bench-{commit[:12]}"
    if not (target / "manage.py").exists():
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        partial = target.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        partial.rename(target)
    return target


def short_revision(revision: str) -> str:
    """`revision` as a short commit id (for labels)."""
    return subprocess.run(
        ["git", "rev-parse", "--short", revision], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def profiler(output: Path, *, gil: bool = False) -> list[str]:
    """The command prefix that runs a server under py-spy, writing collapsed stacks to
    `output` (read them with `bench/profile_summary.py`); with `gil`, only the thread
    holding the GIL is sampled, so the samples are the Python work that limits the
    process. py-spy is not a dependency of the project: `pip install py-spy` into any
    environment on PATH."""
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy on PATH (pip install py-spy)")
    only_gil = ["--gil"] if gil else []
    return [spy, "record", "--format", "raw", "--rate", "250", *only_gil, "--output", str(output), "--"]
