"""Database connections benchmark: what a load of plain HTTP requests leaves a server
holding, and what it costs the table meanwhile.

10,000 requests (1,000 with --quick) to `/api/genres`, `/api/sessions`, `POST
/api/games`, `/metrics`, `/` and `/readyz`, half one after another and half 50 at a
time, to a server with its default pool. Prints the server's database connections
(hosted: its database's rows in `pg_stat_activity`; embedded: its open handles on
db.sqlite3) before, at most during, right after the load and once settled, the
answers by status, and a member's `.r 1d6` round trips during the load beside the
same rolls with no load (the baseline).

    python bench/connections.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import percentile, rolls
from loreweaver.testing.http_load import WEB_REQUESTS, connections_held, highest, load, settled
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

AT_ONCE = 50
# Pooled connections above the first close one per TRPG_DB__POOL_IDLE (60 s by
# default); a shorter one here shows them close within the run (hosted).
POOL_IDLE = "2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    requests = 1000 if parser.parse_args().quick else 10_000

    with tempfile.TemporaryDirectory() as folder:
        env = create_env(Path(folder), hosted=hosted_profile(), TRPG_DB__POOL_IDLE=POOL_IDLE)
        server = start_serve(env, "--no-iroh")
        try:
            key = env.mint("rolling", "Roller")
            base = server.ws_url.replace("ws://", "http://").rstrip("/")
            held = partial(connections_held, server)
            quiet = asyncio.run(rolls(server.ws_url, key, 100))
            at_start = held()
            done, answers = threading.Event(), Counter()

            def flood() -> None:
                try:
                    answers.update(load(base, WEB_REQUESTS, requests, AT_ONCE))
                finally:
                    done.set()

            with highest(held) as most:
                started = time.monotonic()
                sender = threading.Thread(target=flood)
                sender.start()
                loaded = asyncio.run(rolls(server.ws_url, key, until=done))
                sender.join()
                seconds = time.monotonic() - started
            right_after = held()
            # Hosted, the pool closes what it no longer needs; embedded, each thread that
            # serves requests keeps its SQLite connection (their number is fixed).
            at_end, settling = settled(held, at_start, 120) if env.hosted else (right_after, 0.0)
        finally:
            server.stop()
            destroy_env(env)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, in-process bus)"
    kind = "pg_stat_activity rows" if env.hosted else "handles on db.sqlite3"
    statuses = Counter()
    for (_method, _path, status), count in answers.items():
        statuses[status] += count
    print(f"connections: {requests} HTTP requests, half one at a time, half {AT_ONCE} at once; {profile}")
    print(f"  answers: {dict(sorted(statuses.items()))} in {seconds:.1f} s ({requests / seconds:.0f}/s)")
    print(f"  {kind}: {at_start} before (a member joined), {most[0]} at most during, {right_after} after")
    if env.hosted:
        print(f"  then {at_end}, {settling:.0f} s later: the pool closed what it no longer needed")
    for label, values in (("rolls, no load", quiet), ("rolls during the load", loaded)):
        print(
            f"  {label:24s} p50 {statistics.median(values) * 1000:7.1f} ms"
            f"   p99 {percentile(values, 0.99) * 1000:7.1f} ms   ({len(values)} rolls)"
        )
    print(f"  ratio loaded to quiet: p50 {statistics.median(loaded) / statistics.median(quiet):.2f}")


if __name__ == "__main__":
    main()
