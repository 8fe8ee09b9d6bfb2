"""Capacity: what one command costs each part of a hosted deployment, and how many
tables that makes per core of each.

Runs the fan-out workloads of `bench/fanout.py` (story lines with the Keeper bot off,
and `.r 1d6`) on the hosted profile, one server process on one Postgres and one Redis,
and measures over each run:

- the CPU seconds of the server process, of Redis and of Postgres (every backend);
- the Redis commands, by name (`INFO commandstats`, before and after);
- the Postgres transactions and rows read and written (`pg_stat_database`);

then divides by the commands played, and projects the ceiling of each part: tables of
six typing players per core, under assumptions it prints (how often a player sends a
line). It also measures joins per second from cold (each the first join of its room
since the server started) beside warm (rejoins into rooms whose members are online).

    python bench/capacity.py                      # full run
    python bench/capacity.py --quick              # the short run `make bench-quick` does
    python bench/capacity.py --typing-seconds 30  # a slower table

Nothing else should run on the machine meanwhile: Postgres and Redis are metered as a
whole. docs/capacity.md holds a full run's figures and what they mean for sizing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fanout import (  # noqa: E402
    MEMBERS,
    SERVER_SETTINGS,
    WORKLOADS,
    Target,
    human_keepers,
    join_member,
    run_workload,
)
from loreweaver.testing.servers import REDIS_TEST_URL, create_env, destroy_env, start_serve  # noqa: E402

# Postgres publishes a backend's statistics at most once a second (PGSTAT_MIN_INTERVAL):
# a read sooner after the load would miss the last of it.
PG_STATS_DELAY = 1.1


@dataclass
class Counters:
    """What the shared services counted at one moment."""

    redis_calls: dict[str, int] = field(default_factory=dict)
    pg: dict[str, int] = field(default_factory=dict)

    def minus(self, before: Counters) -> Counters:
        calls = {name: n - before.redis_calls.get(name, 0) for name, n in self.redis_calls.items()}
        return Counters(
            {name: n for name, n in calls.items() if n > 0},
            {name: n - before.pg.get(name, 0) for name, n in self.pg.items()},
        )


def read_counters(database_url: str) -> Counters:
    """Redis's commands by name and the database's Postgres counters, now."""
    stats = redis.Redis.from_url(REDIS_TEST_URL).info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}
    time.sleep(PG_STATS_DELAY)
    database = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url) as connection:
        row = connection.execute(
            "SELECT xact_commit, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted "
            "FROM pg_stat_database WHERE datname = %s",
            (database,),
        ).fetchone()
    names = ("transactions", "rows scanned", "rows fetched", "rows inserted", "rows updated", "rows deleted")
    return Counters(calls, dict(zip(names, (int(v) for v in row), strict=True)))


@dataclass
class Cost:
    """One workload's run: the commands played and what they cost each part."""

    workload: str
    commands: int
    seconds: float
    cpu: dict[str, float]
    counted: Counters

    def per_command(self, part: str) -> float:
        return self.cpu.get(part, 0.0) / self.commands


async def measure_workloads(
    target: Target, keys: list[list[str]], lines: int, database_url: str
) -> list[Cost]:
    costs = []
    for workload in WORKLOADS.values():
        before = read_counters(database_url)
        result = await run_workload(target, keys, lines, workload)
        counted = read_counters(database_url).minus(before)
        commands = len(keys) * MEMBERS * lines
        costs.append(Cost(workload.name, commands, result.seconds, result.cpu, counted))
    return costs


async def measure_joins(target: Target, cold_keys: list[str], warm_keys: list[str], at_once: int) -> dict:
    """Joins per second: `cold_keys` each open a room nobody joined since the start;
    `warm_keys` rejoin rooms whose other members stay online. `at_once` joins at a time."""

    async def joins_per_second(keys: list[str]) -> float:
        sockets = []
        start = time.perf_counter()
        for first in range(0, len(keys), at_once):
            batch = keys[first : first + at_once]
            sockets += await asyncio.gather(
                *(join_member(target.urls[0], key, target.ready_type) for key in batch)
            )
        elapsed = time.perf_counter() - start
        for socket in sockets:
            await socket.close()
        return len(keys) / elapsed

    return {"cold": await joins_per_second(cold_keys), "warm": await joins_per_second(warm_keys)}


def report(costs: list[Cost], joins: dict, typing_seconds: float, plan: str) -> None:
    per_table = MEMBERS / typing_seconds
    print(f"capacity: hosted profile, one server process, {plan}")
    print("assumptions:")
    print(f"  a table is {MEMBERS} players, each sending a line or a roll every {typing_seconds:g} s")
    print(f"  ({per_table:.2f} commands per second per table), spread evenly;")
    print("  the Keeper bot off (a model's answer costs its provider, not these cores; the offline")
    print("  Keeper's narration costs the server about what a line does);")
    print("  a part is full when its commands keep one core busy: leave headroom (aim at half).")
    for cost in costs:
        print(f"workload {cost.workload}: {cost.commands} commands in {cost.seconds:.1f} s")
        for part, label in (("server 1", "server process"), ("redis", "Redis"), ("postgres", "Postgres")):
            seconds = cost.per_command(part)
            tables = 1 / (seconds * per_table) if seconds > 0 else float("inf")
            print(f"  {label:15} {seconds * 1000:6.2f} ms CPU per command -> {tables:7.0f} tables per core")
        calls = sorted(cost.counted.redis_calls.items(), key=lambda item: -item[1])
        total = sum(n for _name, n in calls)
        shown = ", ".join(f"{name} {n / cost.commands:.1f}" for name, n in calls[:6])
        trips = sum(n for name, n in calls if name in ("evalsha", "publish"))
        print(f"  Redis commands per command: {total / cost.commands:.1f} ({shown});")
        print(f"    round trips {trips / cost.commands:.1f} (EVALSHA, PUBLISH; scripts' commands are above)")
        pg = ", ".join(f"{name} {n / cost.commands:.1f}" for name, n in cost.counted.pg.items())
        print(f"  Postgres per command: {pg}")
    print(f"joins per second: cold {joins['cold']:.0f}, warm {joins['warm']:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--rooms", type=int, help="rooms of 6 members")
    parser.add_argument("--lines", type=int, help="inputs each member sends per workload")
    parser.add_argument("--joins", type=int, help="joins of each kind (cold, warm)")
    parser.add_argument(
        "--typing-seconds", type=float, default=20.0, help="seconds between a player's inputs"
    )
    args = parser.parse_args()
    rooms = args.rooms or (2 if args.quick else 10)
    lines = args.lines or (10 if args.quick else 40)
    joins = args.joins or (40 if args.quick else 400)

    env = create_env(Path(tempfile.mkdtemp(prefix="capacity-")), hosted=True, **SERVER_SETTINGS)
    server = None
    try:
        keys = [[env.mint(f"cap-{r}", f"m{m}") for m in range(MEMBERS)] for r in range(rooms)]
        keepers = [env.mint(f"cap-{r}", "host", "keeper") for r in range(rooms)]
        cold = [env.mint(f"cold-{n}", "first") for n in range(joins)]
        warm_rooms = max(1, joins // 20)
        staying = [env.mint(f"warm-{n}", "stays") for n in range(warm_rooms)]
        warm = [env.mint(f"warm-{n % warm_rooms}", f"back{n}") for n in range(joins)]
        server = start_serve(env, "--no-iroh")
        target = Target("head", [server.ws_url], "ui_manifest", servers=[server], hosted=True)

        async def go() -> tuple[list[Cost], dict]:
            await human_keepers(target, keepers)
            costs = await measure_workloads(target, keys, lines, env.database_url)
            online = [await join_member(server.ws_url, key, "ui_manifest") for key in staying]
            found = await measure_joins(target, cold, warm, at_once=20)
            for socket in online:
                await socket.close()
            return costs, found

        costs, found = asyncio.run(go())
    finally:
        if server is not None:
            server.stop()
        destroy_env(env)
    report(costs, found, args.typing_seconds, f"{rooms} rooms x {MEMBERS} members x {lines} inputs")


if __name__ == "__main__":
    main()
