"""Fan-out benchmark: rooms of 6 members playing over WebSocket, in a closed loop.

Two workloads; in both, each member sends its next input only once its own reply came
back (as a person at a keyboard would, only faster):

- `lines`: story lines in rooms whose keeper turned the Keeper bot off (`.bot off`), so
  every input is a player's line and nothing answers it but the line itself;
- `roll`: the dice command `.r 1d6`, whose reply is the room's `dice` frame.

Each runs against this server (`manage.py serve --no-iroh`; with `--mix`, Iroh on and
the members spread over every carrier, `bench/members.py`) and against a minimal
relay written with the raw `websockets` library, started here in its own process: it
relays a line (or rolls a die with `random`) to the sender's room and does nothing
else. Printed per run: frames delivered per second, the ratio to the relay, p50/p99 of
input to own reply, and the CPU seconds of every process involved (the servers, and on
the hosted profile Postgres and Redis). The relay is measured in the same run, so the
ratio is what compares across machines and runs.

    python bench/fanout.py                    # full run, both workloads
    python bench/fanout.py --quick            # the short run CI does
    python bench/fanout.py --against 783218d  # the same runs on another revision, side by side
    python bench/fanout.py --against 783218d --repeat 5  # five sittings, alternating which
                                              # goes first; the median of their ratios
    python bench/fanout.py --processes 2      # hosted: 2 server processes and the Iroh
                                              # sidecar, members spread round-robin, beside 1
    python bench/fanout.py --idle 3000        # the active rooms again with 3,000 silent members
    python bench/fanout.py --mix              # a fifth of the members over Iroh, a fifth
                                              # SideQuest, a fifth the browser table's join
    python bench/fanout.py --profile DIR      # the server under py-spy (see bench/README.md)
    python bench/fanout.py --profile DIR --gil  # only the thread holding the GIL
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import members  # noqa: E402
from bench.common import checkout, percentile, profiler, services_meter, short_revision  # noqa: E402
from loreweaver.testing.servers import (  # noqa: E402
    ServerProcess,
    create_env,
    destroy_env,
    hosted_profile,
    start_iroh_sidecar,
    start_serve,
)

MEMBERS = 6
IDLE_PER_ROOM = 10
# The bench is the only client: limits meant for strangers would only measure themselves.
SERVER_SETTINGS = {
    "TRPG_TUI__MAX_CONNECTIONS": "20000",
    # Rate limiting stays on (its cost is part of every input), with room for the load.
    "TRPG_RATE__BURST": "1000000",
    "TRPG_RATE__REFILL_SECONDS": "0.001",
}

RAW_SERVER = r"""
import asyncio, json, random, sys
import websockets

rooms = {}

async def handle(socket):
    join = json.loads(await socket.recv())
    room, name = join["key"].split("/")
    members = rooms.setdefault(room, set())
    members.add(socket)
    await socket.send(json.dumps({"type": "welcome"}))
    try:
        async for message in socket:
            text = json.loads(message)["text"]
            if text.startswith(".r "):
                face = random.randint(1, 6)
                frame = {"type": "dice", "actor": name, "kind": "roll", "expr": "1d6",
                         "rolls": [face], "total": face}
            else:
                frame = {"type": "narrative", "speaker": "player", "name": name, "text": text}
            websockets.broadcast(members, json.dumps(frame))
    finally:
        members.discard(socket)

async def main():
    async with websockets.serve(handle, "127.0.0.1", 0, max_queue=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


@dataclass(frozen=True)
class Workload:
    """What a member sends, and which frames are the deliveries counted."""

    name: str
    title: str
    text: Callable[[int, int], str]  # (member index, input number) -> input text
    delivered: Callable[[dict], bool]
    own: Callable[[dict, int], bool]  # is this delivery the reply to member i's input?


def _member_name(member: int) -> str:
    return f"m{member % MEMBERS}"


WORKLOADS = {
    "lines": Workload(
        "lines",
        "story lines, Keeper bot off",
        lambda member, n: f"member {member} line {n}",
        lambda frame: frame.get("type") == "narrative" and frame.get("speaker") == "player",
        lambda frame, member: frame["text"].startswith(f"member {member} "),
    ),
    "roll": Workload(
        "roll",
        "closed-loop .r 1d6",
        lambda member, n: ".r 1d6",
        lambda frame: frame.get("type") == "dice",
        lambda frame, member: frame.get("actor") == _member_name(member),
    ),
}


@dataclass
class Result:
    delivered: int
    seconds: float
    latencies: list[float]
    cpu: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.delivered / self.seconds


@dataclass
class Target:
    """A running group of servers (or the relay), with how to reach and meter it."""

    label: str
    urls: list[str]
    ready_type: str  # the last frame of a join
    servers: list[ServerProcess] = field(default_factory=list)
    hosted: bool = False
    ticket: str = ""  # the Iroh carrier's, when the servers run one
    pids: dict[str, list[int]] = field(default_factory=dict)  # other processes to meter

    def meter(self):
        parts: dict[str, list[int]] = dict(self.pids)
        for n, server in enumerate(self.servers):
            name = "sidecar" if server.args[0] == "iroh_serve" else f"server {n + 1}"
            parts[name] = [server.pid]
        return services_meter(self.hosted, parts)


async def join_member(url: str, key: str, ready_type: str) -> websockets.ClientConnection:
    return await members.websocket_join(url, {"type": "join", "key": key}, ready_type)


async def _drain(socket: websockets.ClientConnection) -> None:
    """Read and forget (an idle member's client still reads what it is sent)."""
    try:
        async for _ in socket:
            pass
    except websockets.ConnectionClosed:
        pass


async def join_idle(target: Target, idle_keys: list[str]) -> list[asyncio.Task]:
    """Join the idle members (a hundred at a time) and keep reading for them."""
    readers = []
    for start in range(0, len(idle_keys), 100):
        batch = idle_keys[start : start + 100]
        sockets = await asyncio.gather(
            *(
                join_member(target.urls[(start + n) % len(target.urls)], key, target.ready_type)
                for n, key in enumerate(batch)
            )
        )
        readers.extend(asyncio.create_task(_drain(socket)) for socket in sockets)
    return readers


async def run_workload(
    target: Target, keys_by_room: list[list[str]], lines: int, workload: Workload, mix: bool = False
) -> Result:
    """Every member sends `lines` inputs, each once its previous reply came back; members
    are spread round-robin over the target's servers (and, with `mix`, over the
    carriers and protocols: `bench/members.py`)."""
    keys = [key for room in keys_by_room for key in room]
    joined: list[members.Member] = []
    for member, key in enumerate(keys):
        url = target.urls[member % len(target.urls)]
        carrier = members.carrier_of(member, mix)
        joined.append(
            await members.join(carrier, url, target.ticket, key, _member_name(member), target.ready_type)
        )
    expected_each = MEMBERS * lines
    delivered = 0
    latencies: list[float] = []
    own_reply: dict[int, asyncio.Queue] = {i: asyncio.Queue() for i in range(len(joined))}

    def loreweaver_counter(frame: dict, member: int) -> tuple[bool, bool]:
        counted = workload.delivered(frame)
        return counted, counted and workload.own(frame, member)

    async def read(joined_member: members.Member, member: int) -> None:
        nonlocal delivered
        counts = loreweaver_counter
        if joined_member.carrier == "sidequest":
            counts = members.sidequest_counter(workload.name)
        seen = replies = 0
        # A SideQuest member's reply (its input's end) may come after its last delivery.
        while seen < expected_each or replies < lines:
            is_delivery, is_own = counts(await joined_member.recv(), member)
            seen += is_delivery
            if is_own:
                replies += 1
                own_reply[member].put_nowait(time.perf_counter())
        delivered += seen

    async def talk(joined_member: members.Member, member: int) -> None:
        for n in range(lines):
            sent = time.perf_counter()
            await joined_member.say(workload.text(member, n))
            latencies.append(await own_reply[member].get() - sent)

    meter = target.meter()
    meter.start()
    start = time.perf_counter()
    readers = [asyncio.create_task(read(m, i)) for i, m in enumerate(joined)]
    await asyncio.wait_for(asyncio.gather(*(talk(m, i) for i, m in enumerate(joined))), 900)
    await asyncio.wait_for(asyncio.gather(*readers), 600)
    elapsed = time.perf_counter() - start
    cpu = meter.stop()
    for joined_member in joined:
        await joined_member.close()
    return Result(delivered, elapsed, latencies, cpu)


async def human_keepers(target: Target, keeper_keys: list[str]) -> None:
    """Each room's keeper turns the Keeper bot off (`.bot off`): the `lines` workload is
    the players' story lines, with no Keeper turns between them. (A revision without
    the command answers that it does not know it; it had no bot answering lines.)"""
    for key in keeper_keys:
        socket = await join_member(target.urls[0], key, target.ready_type)
        await socket.send(json.dumps({"type": "input", "text": ".bot off"}))
        while json.loads(await socket.recv()).get("speaker") != "system":
            pass
        await socket.close()


@dataclass
class Plan:
    rooms: int
    lines: int
    workloads: list[Workload]
    idle: int
    profile_dir: Path | None
    profile_gil: bool = False
    mix: bool = False  # members over every carrier and protocol (`bench/members.py`)

    def member_keys(self, env, prefix: str = "bench") -> list[list[str]]:
        return [[env.mint(f"{prefix}-{r}", f"m{m}") for m in range(MEMBERS)] for r in range(self.rooms)]


def start_target(root: Path, label: str, processes: int, plan: Plan, hosted: bool, run) -> dict:
    """Start `processes` servers of the checkout at `root` on a fresh environment, run
    `run(target, keys, keeper_keys, idle_keys)` against them, stop them."""
    env = create_env(Path(tempfile.mkdtemp(prefix="fanout-")), hosted=hosted, root=root, **SERVER_SETTINGS)
    servers: list[ServerProcess] = []
    try:
        keys = plan.member_keys(env)
        keeper_keys = [env.mint(f"bench-{r}", "host", "keeper") for r in range(plan.rooms)]
        idle_keys = [
            env.mint(f"idle-{n // IDLE_PER_ROOM}", f"quiet{n % IDLE_PER_ROOM}") for n in range(plan.idle)
        ]
        for n in range(processes):
            launcher = None
            if plan.profile_dir is not None:
                plan.profile_dir.mkdir(parents=True, exist_ok=True)
                output = plan.profile_dir / f"{label.replace(' ', '-')}-server{n + 1}.txt"
                launcher = profiler(output, gil=plan.profile_gil)
            # One process carries Iroh itself; beside others, the sidecar does.
            iroh = ["--no-iroh"] if processes > 1 or not plan.mix else []
            servers.append(start_serve(env, *iroh, launcher=launcher))
        if processes > 1:
            servers.append(start_iroh_sidecar(env))
        target = Target(
            label, [s.ws_url for s in servers if s.ws_url], "ui_manifest", servers=servers, hosted=hosted
        )
        target.ticket = next((s.ticket for s in servers if s.ticket), "")
        return run(target, keys, keeper_keys, idle_keys)
    finally:
        for server in servers:
            server.stop()
        destroy_env(env)


def start_relay() -> tuple[subprocess.Popen, Target]:
    process = subprocess.Popen([sys.executable, "-c", RAW_SERVER], stdout=subprocess.PIPE, text=True)
    port = process.stdout.readline().strip()
    target = Target("raw websockets", [f"ws://127.0.0.1:{port}/"], "welcome", pids={"relay": [process.pid]})
    return process, target


def measure_servers(root: Path, label: str, processes: int, plan: Plan, hosted: bool) -> dict[str, Result]:
    """Each workload (and, with idle members, the same again beside them) on a server
    group of the checkout at `root`."""

    def run(target: Target, keys, keeper_keys, idle_keys) -> dict[str, Result]:
        async def go() -> dict[str, Result]:
            await human_keepers(target, keeper_keys)
            results = {}
            for workload in plan.workloads:
                results[workload.name] = await run_workload(target, keys, plan.lines, workload, plan.mix)
            if idle_keys:
                readers = await join_idle(target, idle_keys)
                for workload in plan.workloads:
                    results[f"{workload.name}+idle"] = await run_workload(
                        target, keys, plan.lines, workload, plan.mix
                    )
                for reader in readers:
                    reader.cancel()
            return results

        return asyncio.run(go())

    return start_target(root, label, processes, plan, hosted, run)


def measure_relay(plan: Plan) -> dict[str, Result]:
    process, target = start_relay()
    try:
        keys = [[f"bench-{r}/m{m}" for m in range(MEMBERS)] for r in range(plan.rooms)]

        async def go() -> dict[str, Result]:
            return {w.name: await run_workload(target, keys, plan.lines, w) for w in plan.workloads}

        return asyncio.run(go())
    finally:
        process.terminate()
        process.wait(10)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def _cpu_line(result: Result) -> str:
    parts = ", ".join(f"{part} {seconds:.1f}" for part, seconds in sorted(result.cpu.items()))
    total = sum(result.cpu.values())
    per_k = _cpu_per_delivery(result) * 1000 if result.delivered else 0.0
    return f"CPU s: {parts} (total {total:.1f}, {per_k:.2f} per 1,000 delivered)"


def report_row(label: str, result: Result, baseline: Result | None) -> None:
    ratio = f"ratio {result.rate / baseline.rate:6.3f}" if baseline else " " * 12
    print(
        f"  {label:22}: {result.delivered:7d} in {result.seconds:6.2f} s = {result.rate:8.0f}/s  {ratio}"
        f"  p50 {_ms(percentile(result.latencies, 0.5))}  p99 {_ms(percentile(result.latencies, 0.99))}"
    )
    if result.cpu:
        print(f"  {'':22}  {_cpu_line(result)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--rooms", type=int, help="rooms of 6 members")
    parser.add_argument("--lines", type=int, help="inputs each member sends per workload")
    parser.add_argument("--workload", choices=["lines", "roll", "both"], default="both")
    parser.add_argument("--processes", type=int, default=1, help="server processes (hosted profile)")
    parser.add_argument("--idle", type=int, default=0, help="joined but silent members, 10 per room")
    parser.add_argument(
        "--mix", action="store_true", help="a fifth of the members each by Iroh, SideQuest, the browser"
    )
    parser.add_argument("--against", metavar="REV", help="also run a checkout of this revision")
    parser.add_argument(
        "--repeat", type=int, default=1, metavar="N", help="with --against: N sittings, the median ratio"
    )
    parser.add_argument("--profile", type=Path, metavar="DIR", help="record the servers with py-spy")
    parser.add_argument("--gil", action="store_true", help="with --profile: sample only the GIL holder")
    args = parser.parse_args()
    hosted = hosted_profile()
    if args.processes > 1 and not hosted:
        parser.error("--processes needs the hosted profile (set REDIS_URL and DATABASE_URL)")
    if args.repeat > 1 and (not args.against or args.processes > 1 or args.idle):
        parser.error("--repeat compares one process with --against, without --idle")
    names = ["lines", "roll"] if args.workload == "both" else [args.workload]
    plan = Plan(
        rooms=args.rooms or (2 if args.quick else 10),
        lines=args.lines or (10 if args.quick else 40),
        workloads=[WORKLOADS[name] for name in names],
        idle=args.idle,
        profile_dir=args.profile,
        profile_gil=args.gil,
        mix=args.mix,
    )

    if args.repeat > 1:
        sittings = repeated_sittings(plan, hosted, args.against, args.repeat)
        runs = [("this checkout", sittings[0][0]), (short_revision(args.against), sittings[0][1])]
    else:
        sittings = []
        runs = one_sitting(plan, hosted, args)
    relay = measure_relay(plan)

    profile = "hosted (Postgres + Redis)" if hosted else "embedded (SQLite, in-process bus)"
    print(f"fan-out: {plan.rooms} rooms x {MEMBERS} members x {plan.lines} inputs each, profile {profile}")
    if plan.idle:
        print(f"  idle: {plan.idle} joined, silent members in {plan.idle // IDLE_PER_ROOM} more rooms")
    if plan.mix:
        carriers = Counter(members.carrier_of(n, True) for n in range(plan.rooms * MEMBERS))
        told = ", ".join(f"{count} {name}" for name, count in carriers.items())
        print(f"  members: {told} (the browser table's in Chinese; the raw relay's all WebSocket)")
    for workload in plan.workloads:
        print(f"workload {workload.name} ({workload.title}):")
        report_row("raw websockets", relay[workload.name], None)
        for label, results in runs:
            report_row(label, results[workload.name], relay[workload.name])
            idle = results.get(f"{workload.name}+idle")
            if idle is not None:
                report_row(f"{label} + idle", idle, relay[workload.name])
                share = idle.rate / results[workload.name].rate
                print(f"  {'':22}  with idle members / without: {share:.2f}")
        _compare(runs, workload, args)
        if sittings:
            _median_ratios(sittings, workload, short_revision(args.against))


def one_sitting(plan: Plan, hosted: bool, args: argparse.Namespace) -> list[tuple[str, dict[str, Result]]]:
    """This checkout (and the --against revision), with each process count asked for."""
    runs: list[tuple[str, dict[str, Result]]] = []
    counts = [1, args.processes] if args.processes > 1 else [1]
    for processes in counts:
        suffix = f" x{processes}" if len(counts) > 1 else ""
        runs.append((f"this checkout{suffix}", measure_servers(ROOT, "head", processes, plan, hosted)))
        if args.against:
            label = short_revision(args.against)
            old = measure_servers(checkout(args.against), label, processes, plan, hosted)
            runs.append((f"{label}{suffix}", old))
    return runs


def repeated_sittings(
    plan: Plan, hosted: bool, against: str, repeat: int
) -> list[tuple[dict[str, Result], dict[str, Result]]]:
    """`repeat` pairs of (this checkout, the other revision), the first of each pair
    alternating, so a machine that slows down during the run weighs on both alike."""
    old_root, label = checkout(against), short_revision(against)
    sittings = []
    for n in range(repeat):
        if n % 2 == 0:
            new = measure_servers(ROOT, "head", 1, plan, hosted)
            old = measure_servers(old_root, label, 1, plan, hosted)
        else:
            old = measure_servers(old_root, label, 1, plan, hosted)
            new = measure_servers(ROOT, "head", 1, plan, hosted)
        sittings.append((new, old))
    return sittings


def _cpu_per_delivery(result: Result) -> float:
    return sum(result.cpu.values()) / result.delivered


def _median_ratios(
    sittings: list[tuple[dict[str, Result], dict[str, Result]]], workload: Workload, label: str
) -> None:
    """Each sitting's ratios, then their medians: this machine's noise is about a quarter
    either way in one sitting, so a single ratio cannot say "no slower"."""
    pairs = [(new[workload.name], old[workload.name]) for new, old in sittings]
    throughput = [new.rate / old.rate for new, old in pairs]
    per_cpu = [_cpu_per_delivery(old) / _cpu_per_delivery(new) for new, old in pairs]
    p99 = [percentile(new.latencies, 0.99) / percentile(old.latencies, 0.99) for new, old in pairs]
    for name, ratios in (("throughput", throughput), ("deliveries per CPU s", per_cpu), ("p99", p99)):
        each = " ".join(f"x{ratio:.2f}" for ratio in ratios)
        print(f"  this checkout / {label}, {name}: median x{statistics.median(ratios):.2f} ({each})")


def _compare(runs: list[tuple[str, dict[str, Result]]], workload: Workload, args: argparse.Namespace) -> None:
    """The side-by-side figures the targets are stated in."""
    by_label = {label: results[workload.name] for label, results in runs}
    if args.against:
        old_label = short_revision(args.against)
        for suffix in [""] if args.processes == 1 else [" x1", f" x{args.processes}"]:
            new, old = by_label[f"this checkout{suffix}"], by_label[f"{old_label}{suffix}"]
            print(
                f"  this checkout{suffix} / {old_label}{suffix}: throughput x{new.rate / old.rate:.2f}, "
                f"p99 x{percentile(new.latencies, 0.99) / percentile(old.latencies, 0.99):.2f}"
            )
    if args.processes > 1:
        one, many = by_label["this checkout x1"], by_label[f"this checkout x{args.processes}"]
        print(f"  {args.processes} processes / 1 process (this checkout): x{many.rate / one.rate:.2f}")


if __name__ == "__main__":
    main()
