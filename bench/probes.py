"""Health probes benchmark: what a flood of `/readyz` and `/healthz` costs the table.

One member rolls `.r 1d6` over and over; its round trips (input to the `dice` frame)
are measured with nobody probing, then while 100 `/readyz` a second and 250 `/healthz`
a second arrive from other threads. Prints p50/p99 of both and the ratio (the target:
a probe flood slows a roll less than twofold).

    python bench/probes.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import percentile, rolls
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

RATES = {"/readyz": 100, "/healthz": 250}  # probes per second


def _probe(url: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            response.read()
    except urllib.error.HTTPError:
        pass  # a 503 is an answer too


def _flood(base: str, stop: threading.Event, sent: dict[str, int]) -> None:
    """Send each path at its rate until `stop` is set (a fixed schedule: a slow answer
    does not slow the flood, up to the pool's threads)."""
    with ThreadPoolExecutor(max_workers=32) as pool:
        start = time.monotonic()
        while not stop.is_set():
            elapsed = time.monotonic() - start
            for path, rate in RATES.items():
                due = int(elapsed * rate)
                while sent[path] < due:
                    pool.submit(_probe, base + path)
                    sent[path] += 1
            time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    count = 100 if parser.parse_args().quick else 600

    with tempfile.TemporaryDirectory() as folder:
        env = create_env(Path(folder), hosted=hosted_profile())
        server = start_serve(env, "--no-iroh")
        try:
            key = env.mint("probed", "Roller")
            base = server.ws_url.replace("ws://", "http://").rstrip("/")
            quiet = asyncio.run(rolls(server.ws_url, key, count))
            stop, sent = threading.Event(), dict.fromkeys(RATES, 0)
            flood = threading.Thread(target=_flood, args=(base, stop, sent))
            flood.start()
            flood_started = time.monotonic()
            try:
                probed = asyncio.run(rolls(server.ws_url, key, count))
            finally:
                stop.set()
                flood.join()
            seconds = time.monotonic() - flood_started
        finally:
            server.stop()
            destroy_env(env)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, in-process bus)"
    print(f"probes: {count} rolls of one member, profile {profile}")
    rates = ", ".join(f"{path} {count / seconds:.0f}/s" for path, count in sent.items())
    for label, values in (("quiet", quiet), (f"probed ({rates})", probed)):
        print(
            f"  {label:44s} p50 {statistics.median(values) * 1000:7.1f} ms"
            f"   p99 {percentile(values, 0.99) * 1000:7.1f} ms"
        )
    ratio_50 = statistics.median(probed) / statistics.median(quiet)
    ratio_99 = percentile(probed, 0.99) / percentile(quiet, 0.99)
    verdict = "under" if ratio_50 < 2 else "OVER"
    print(f"  ratio probed to quiet: p50 {ratio_50:.2f}, p99 {ratio_99:.2f} ({verdict} the 2x target at p50)")


if __name__ == "__main__":
    main()
