"""Soak: many members playing for minutes through a Redis restart and a killed server,
behind a real load balancer.

Hosted profile, on loopback only: three `serve --no-iroh` processes on one Postgres and
a Redis of the run's own (so it can be restarted), HAProxy in front of them (least
connections, each server's `/readyz` checked twice a second), and a scripted model
server on loopback answering the Keeper. 1,000 members in 100 rooms (10 each) connect
through HAProxy and each say a story line every 5 seconds; a quarter of the rooms keep
the Keeper bot on, so a quarter of the lines are Keeper turns, the rest lines a human
keeper narrates around. A fifth of the way in, Redis is restarted (empty); a third of
the way in, one server process is killed with -9: its members reconnect, with backoff,
through HAProxy, which sends them to the others; once they hold them, the killed
server starts again on its port. Both faults fall in the first half, so the second half
is the steady load the RSS growth is measured over.

A line counts as acknowledged when its sender saw it come back from the room. At the
end every room is joined once more with a replay window wide enough for the whole
evening, and every acknowledged line must be in it. Printed: lines sent and
acknowledged, acknowledged lines missing from the final replay (must be 0), members
per server before the kill and after the others took them, p50/p99 of input to own
line back, each server's RSS over time with its growth over the last half of the run,
and the error lines of the server logs.

    python bench/soak.py                  # 1,000 members, 10 minutes
    python bench/soak.py --quick          # 100 members, 1 minute (CI)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import percentile  # noqa: E402
from loreweaver.testing.fake_llm import FakeLlm, Text, Usage  # noqa: E402
from loreweaver.testing.metrics import as_scraper  # noqa: E402
from loreweaver.testing.servers import (  # noqa: E402
    RedisServer,
    ServerProcess,
    create_env,
    destroy_env,
    start_serve,
)

PER_ROOM = 10
SERVERS = 3
REPLY = [Text("The fog "), Text("thickens over "), Text("the harbour."), Usage(600, 12, 300)]


@dataclass
class Tally:
    sent: int = 0
    acknowledged: dict[str, set[str]] = field(default_factory=dict)  # room -> frame ids
    latencies: list[float] = field(default_factory=list)
    reconnects: int = 0
    refused: int = 0  # lines answered with an error (nothing stored: Redis was away, say)


class Servers:
    """The server processes behind HAProxy, which members connect to."""

    def __init__(self, env, settings: dict[str, str], base: Path) -> None:
        self.env = env
        self.settings = settings
        self.processes: list[ServerProcess] = [self._start() for _ in range(SERVERS)]
        self.ports = [int(p.ws_url.rsplit(":", 1)[1].strip("/")) for p in self.processes]
        self.balancer = Balancer(base / "haproxy.cfg", self.ports)
        self.rss: dict[str, list[tuple[float, int]]] = {}
        self.logs: list[Path] = []

    def _start(self, port: int = 0) -> ServerProcess:
        return start_serve(self.env, "--no-iroh", "--port", str(port), **self.settings)

    def urls(self) -> list[str]:
        return [self.balancer.url]

    def kill(self, index: int) -> None:
        self.logs.append(self.processes[index].log_path)
        self.processes[index].kill9()

    def restart(self, index: int) -> None:
        """Start the killed server again on its port (HAProxy sends it members once its
        `/readyz` answers)."""
        self.processes[index] = self._start(self.ports[index])

    def joined(self) -> list[int | None]:
        """Members joined on each server now (None: it does not answer)."""
        counts: list[int | None] = []
        for port in self.ports:
            try:  # as a scraper does, with the token every server here is started with
                status, body = as_scraper(f"http://127.0.0.1:{port}/metrics", timeout=2)
            except OSError:
                status, body = 0, b""
            if status != 200:
                counts.append(None)
                continue
            text = body.decode()
            found = re.findall(r"^loreweaver_joined_members\{[^}]*\} (\S+)$", text, re.MULTILINE)
            counts.append(int(sum(float(value) for value in found)))
        return counts

    def sample_rss(self, at: float) -> None:
        for n, process in enumerate(self.processes):
            label = f"server {n + 1} (pid {process.pid})"
            with contextlib.suppress(Exception):  # a process between kill and restart
                self.rss.setdefault(label, []).append((at, process.rss()))

    def stop(self) -> None:
        self.balancer.stop()
        for process in self.processes:
            self.logs.append(process.log_path)
            process.stop()


class Balancer:
    """HAProxy (Debian's package) in front of the servers: least connections, each
    server checked on `/readyz` twice a second and taken out after two failures."""

    def __init__(self, config: Path, ports: list[int]) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        backends = "\n".join(f"  server s{n + 1} 127.0.0.1:{port} check" for n, port in enumerate(ports))
        config.write_text(HAPROXY_CONFIG.format(port=self.port, backends=backends))
        self.process = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                break
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("HAProxy did not start")
            time.sleep(0.05)
        self.url = f"ws://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


HAPROXY_CONFIG = """
global
  maxconn 4000
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout tunnel 1h
  retries 3
  option redispatch
frontend table
  bind 127.0.0.1:{port}
  default_backend servers
backend servers
  balance leastconn
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fall 2 rise 2
{backends}
"""


async def spread_after_kill(servers: Servers, members: int, killed: int) -> list[int | None]:
    """Members per server once the survivors hold (nearly) every member again, or after
    half a minute: how the killed server's members spread."""
    deadline = time.monotonic() + 30
    while True:
        counts = await asyncio.to_thread(servers.joined)
        held = sum(c or 0 for n, c in enumerate(counts) if n != killed)
        if held >= members * 0.98 or time.monotonic() > deadline:
            return counts
        await asyncio.sleep(0.5)


async def _join(url: str, key: str) -> websockets.ClientConnection:
    socket = await websockets.connect(url, max_size=None, max_queue=None, open_timeout=10)
    await socket.send(json.dumps({"type": "join", "key": key}))
    while True:
        frame = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if frame["type"] == "ui_manifest":
            return socket
        if frame["type"] == "error":
            raise RuntimeError(frame)


async def member(
    servers: Servers, room: str, key: str, index: int, interval: float, until: float, tally: Tally
) -> None:
    """Say a line every `interval` seconds until `until`, reconnecting when cut off."""
    name_tag = f"{room} m{index}"
    sequence = 0
    delay = 0.2
    await asyncio.sleep(random.uniform(0, interval))
    while time.monotonic() < until:
        urls = servers.urls()
        try:
            socket = await _join(urls[(index + tally.reconnects) % len(urls)], key)
        except Exception:
            tally.reconnects += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
            continue
        delay = 0.2
        try:
            while time.monotonic() < until:
                text = f"{name_tag} line {sequence}"
                sequence += 1
                sent = time.perf_counter()
                await socket.send(json.dumps({"type": "input", "text": text}))
                tally.sent += 1
                next_at = time.monotonic() + interval
                while True:
                    frame = json.loads(await asyncio.wait_for(socket.recv(), 60))
                    if frame.get("type") == "narrative" and frame.get("text") == text:
                        tally.acknowledged.setdefault(room, set()).add(frame["id"])
                        tally.latencies.append(time.perf_counter() - sent)
                        break
                    if frame.get("type") == "error":  # the line was refused, not stored
                        tally.refused += 1
                        break
                # Read what the room says until the next line is due.
                while (left := next_at - time.monotonic()) > 0:
                    try:
                        await asyncio.wait_for(socket.recv(), left)
                    except TimeoutError:
                        break
        except Exception:
            tally.reconnects += 1  # the server went away (or stalled): join again
        finally:
            await socket.close()


async def human_keeper(url: str, key: str) -> None:
    socket = await _join(url, key)
    await socket.send(json.dumps({"type": "input", "text": ".bot off"}))
    while json.loads(await socket.recv()).get("speaker") != "system":
        pass
    await socket.close()


class ReplayStalled(Exception):
    """A final join that got no frame for a minute; says what it had got."""


async def final_replay(url: str, key: str) -> set[str]:
    """The ids of every story line a fresh join replays."""
    socket = await websockets.connect(url, max_size=None, max_queue=None)
    await socket.send(json.dumps({"type": "join", "key": key}))
    ids, seen = set(), []
    try:
        while True:
            try:
                frame = json.loads(await asyncio.wait_for(socket.recv(), 60))
            except TimeoutError:
                raise ReplayStalled(f"{len(seen)} frames, the last: {seen[-5:]}") from None
            seen.append(frame["type"])
            if frame["type"] == "narrative":
                ids.add(frame["id"])
            if frame["type"] == "state":
                return ids
    finally:
        await socket.close()


# Errors logged this long after an intended fault (or after the load ended, while the
# servers are stopped) are the fault's own; any other error line counts against the run.
FAULT_WINDOW = 15.0


async def soak(
    servers: Servers, redis: RedisServer, plan: dict, keys: dict, tally: Tally
) -> tuple[list[str], list[float]]:
    """Run the load; returns what happened when, and the wall-clock times of the faults."""
    started = time.monotonic()
    until = started + plan["seconds"]
    events = []
    faults: list[float] = []
    for keeper_key in keys["keepers"].values():
        await human_keeper(servers.urls()[0], keeper_key)
    members = [
        asyncio.create_task(member(servers, room, key, n, plan["interval"], until, tally))
        for room, room_keys in keys["members"].items()
        for n, key in enumerate(room_keys)
    ]
    restarted_redis = killed = False
    while time.monotonic() < until:
        elapsed = time.monotonic() - started
        servers.sample_rss(elapsed)
        if not restarted_redis and elapsed > plan["seconds"] / 5:
            restarted_redis = True
            faults.append(time.time())
            redis.stop()
            redis.start()
            events.append(f"{elapsed:5.0f} s: Redis restarted (empty)")
        if not killed and elapsed > plan["seconds"] / 3:
            killed = True
            before = await asyncio.to_thread(servers.joined)
            faults.append(time.time())
            servers.kill(1)
            after = await spread_after_kill(servers, len(members), 1)
            faults.append(time.time())
            await asyncio.to_thread(servers.restart, 1)
            events.append(
                f"{elapsed:5.0f} s: server 2 killed with -9; members per server before {before}, "
                f"once the others took them {after}; then server 2 started again"
            )
        await asyncio.sleep(min(10.0, plan["seconds"] / 20))
    await asyncio.gather(*members, return_exceptions=True)
    servers.sample_rss(time.monotonic() - started)
    return events, faults


def _error_lines(logs: list[Path]) -> list[tuple[float, str]]:
    """Each ERROR entry of the server logs with its time (a traceback belongs to the
    entry before it)."""
    found = []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if " ERROR " in line:
                stamp = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S"))
                found.append((stamp, line))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 members for a minute (CI)")
    parser.add_argument("--members", type=int, help="members in all (10 per room)")
    parser.add_argument("--minutes", type=float, help="how long the load runs")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between a member's lines")
    args = parser.parse_args()
    members = args.members or (100 if args.quick else 1000)
    plan = {"seconds": 60 * (args.minutes or (1 if args.quick else 10)), "interval": args.interval}
    rooms = [f"soak-{r}" for r in range(max(1, members // PER_ROOM))]
    keeper_rooms = set(rooms[: max(1, len(rooms) // 4)])

    base = Path(tempfile.mkdtemp(prefix="soak-"))
    redis = RedisServer(base / "redis")
    llm = FakeLlm(standing_reply=REPLY, keep_requests=False).start()
    env = create_env(base / "data", hosted=True, redis_url=redis.url)
    tally = Tally()
    try:
        keys = {
            "members": {room: [env.mint(room, f"m{n}") for n in range(PER_ROOM)] for room in rooms},
            "keepers": {room: env.mint(room, "host", "keeper") for room in rooms if room not in keeper_rooms},
            "check": {room: env.mint(room, "checker") for room in rooms},
        }
        settings = {
            "TRPG_LLM__PROVIDER": "openai",
            "TRPG_LLM__BASE_URL": llm.url,
            "TRPG_LLM__API_KEY": "soak",
            "TRPG_LLM__CHAT_MODEL": "scripted-keeper",
            "TRPG_TUI__MAX_CONNECTIONS": "5000",
            "TRPG_REPLAY__ENTRIES": "1000000",
        }
        servers = Servers(env, settings, base)
        faults: list[float] = []
        stalled: dict[str, str] = {}
        try:
            events, faults = asyncio.run(soak(servers, redis, plan, keys, tally))

            async def check() -> dict[str, set[str]]:
                url, replays = servers.urls()[0], {}
                for room, key in keys["check"].items():
                    try:
                        replays[room] = await final_replay(url, key)
                    except ReplayStalled as problem:  # reported below, never counted as kept
                        stalled[room] = str(problem)
                return replays

            replayed = asyncio.run(check())
        finally:
            faults.append(time.time())  # stopping the servers is the last intended fault
            servers.stop()
        errors, at_faults = [], []
        for stamp, line in _error_lines(servers.logs):
            near = any(fault - 1 <= stamp <= fault + FAULT_WINDOW for fault in faults)
            (at_faults if near else errors).append(line)
    finally:
        destroy_env(env)
        llm.stop()
        redis.stop()

    acknowledged = sum(len(ids) for ids in tally.acknowledged.values())
    missing = sum(len(ids - replayed.get(room, set())) for room, ids in tally.acknowledged.items())
    print(
        f"soak: {members} members in {len(rooms)} rooms ({len(keeper_rooms)} with the Keeper on), "
        f"a line each every {plan['interval']:g} s for {plan['seconds'] / 60:g} min, "
        f"hosted profile, {SERVERS} servers behind HAProxy"
    )
    for event in events:
        print(f"  {event}")
    print(
        f"  lines sent {tally.sent}, acknowledged {acknowledged}, refused {tally.refused} "
        f"(an error frame: nothing stored), reconnects {tally.reconnects}"
    )
    print(f"  acknowledged lines missing from the final replay: {missing}")
    if stalled:
        print(f"  rooms whose final join stalled (their lines count as missing): {len(stalled)}")
        for room, problem in list(stalled.items())[:5]:
            print(f"    {room}: {problem}")
    print(
        f"  input to own line back: p50 {percentile(tally.latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(tally.latencies, 0.99) * 1000:.1f} ms"
    )
    for label, samples in servers.rss.items():
        if len(samples) < 2:
            continue
        half = [rss for at, rss in samples if at >= samples[-1][0] / 2]
        growth = (half[-1] - half[0]) / half[0] * 100 if len(half) >= 2 else 0.0
        curve = " ".join(f"{rss / 2**20:.0f}" for _at, rss in samples)
        print(f"  RSS {label} (MiB over time): {curve}; over the last half {growth:+.1f}%")
    print(f"  errors in the server logs: {len(errors)} (and {len(at_faults)} at the intended faults)")
    for line in (errors + at_faults)[:10]:
        print(f"    {line}")


if __name__ == "__main__":
    main()
