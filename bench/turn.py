"""Turn benchmark: the server's own overhead in a Keeper turn.

A scripted OpenAI-compatible provider answers at once (`loreweaver/testing/fake_llm.py`, on
loopback), so what is measured is the server: from sending an input to the first
`narrative_delta`, and to `turn_status idle`, p50 and p99. Beside it, in the same run:
the same figures for a dot command (`.r 1d6`, input to reply), and the scripted
provider alone, called directly through the `openai` SDK (first token, whole reply),
so the difference is what the server adds.

    python bench/turn.py            # full run
    python bench/turn.py --quick    # the short run CI does

Then a campaign: 300 Keeper turns (100 with --quick; `--campaign-turns`) in one room
with a small context window (`TRPG_LLM__CONTEXT_WINDOW=8000`), so the story is folded
into its summary again and again in the background; input to first delta around turn
10 and around turn 290, and their ratio (a fold must never hold a turn up, so it stays
near 1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loreweaver.testing.fake_llm import FakeLlm, Text, Usage  # noqa: E402
from loreweaver.testing.servers import (  # noqa: E402
    create_env,
    destroy_env,
    hosted_profile,
    keeper_model,
    start_serve,
)

REPLY = ("The lamp ", "gutters, ", "and somewhere ", "below, a bell ", "answers.")


def script_turn(llm: FakeLlm) -> None:
    llm.script(*(Text(piece) for piece in REPLY), Usage(800, 20, 400))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def joined(socket, key: str):
    """Join on `socket` with `key`; returns `until(predicate)`, which reads frames up to
    the first one `predicate` accepts."""
    await socket.send(json.dumps({"type": "join", "key": key}))
    while json.loads(await socket.recv())["type"] != "ui_manifest":
        pass

    async def until(predicate) -> None:
        while not predicate(json.loads(await socket.recv())):
            pass

    return until


async def measure_server(url: str, key: str, llm: FakeLlm, turns: int) -> dict[str, list[float]]:
    """Input-to-frame times (seconds) for Keeper turns and for dot commands."""
    times: dict[str, list[float]] = {"first delta": [], "idle": [], "dot command": []}
    async with websockets.connect(url, max_size=None) as socket:
        until = await joined(socket, key)
        for n in range(turns):
            script_turn(llm)
            start = time.perf_counter()
            await socket.send(json.dumps({"type": "input", "text": f"I listen ({n})"}))
            await until(lambda f: f["type"] == "narrative_delta")
            times["first delta"].append(time.perf_counter() - start)
            await until(lambda f: f["type"] == "turn_status" and f["status"] == "idle")
            times["idle"].append(time.perf_counter() - start)
            await until(lambda f: f["type"] == "state")

            start = time.perf_counter()
            await socket.send(json.dumps({"type": "input", "text": ".r 1d6"}))
            await until(lambda f: f["type"] == "narrative" and f["speaker"] == "system")
            times["dot command"].append(time.perf_counter() - start)
            await until(lambda f: f["type"] == "state")
    return times


async def measure_provider(llm: FakeLlm, turns: int) -> dict[str, list[float]]:
    """The scripted provider alone, through the same SDK the server uses."""
    import openai

    client = openai.AsyncOpenAI(api_key="bench", base_url=llm.url, max_retries=0)
    times: dict[str, list[float]] = {"model first token": [], "model whole reply": []}
    for _ in range(turns):
        script_turn(llm)
        start = time.perf_counter()
        stream = await client.chat.completions.create(
            model="scripted-keeper", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        first = None
        async for chunk in stream:
            if first is None and chunk.choices and chunk.choices[0].delta.content:
                first = time.perf_counter() - start
        times["model first token"].append(first or 0.0)
        times["model whole reply"].append(time.perf_counter() - start)
    await client.close()
    return times


CAMPAIGN_TURNS = 300
CAMPAIGN_WINDOW = 8000


async def measure_campaign(url: str, key: str, llm: FakeLlm, turns: int) -> list[float]:
    """Input to first delta for each turn of a long campaign (the standing reply)."""
    firsts = []
    async with websockets.connect(url, max_size=None) as socket:
        until = await joined(socket, key)
        for n in range(turns):
            start = time.perf_counter()
            text = f"I search the next room of the old customs house, the {n}th, slowly and with care."
            await socket.send(json.dumps({"type": "input", "text": text}))
            await until(lambda f: f["type"] == "narrative_delta")
            firsts.append(time.perf_counter() - start)
            await until(lambda f: f["type"] == "state")
    return firsts


@contextlib.contextmanager
def scripted_table(llm: FakeLlm, prefix: str, **settings: str) -> Iterator[tuple[str, str]]:
    """A server of its own whose Keeper is the scripted model `llm`: its WebSocket URL
    and a member's key, for as long as the block runs."""
    env = create_env(Path(tempfile.mkdtemp(prefix=prefix)), hosted=hosted_profile())
    try:
        key = env.mint(f"bench-{prefix}", "Bencher")
        server = start_serve(env, "--no-iroh", **keeper_model(llm.url), TRPG_RATE__BURST="100000", **settings)
        try:
            yield server.ws_url, key
        finally:
            server.stop()
    finally:
        destroy_env(env)


def campaign(turns: int) -> list[float]:
    """A server of its own, with a small window, for `measure_campaign`."""
    llm = FakeLlm(
        standing_reply=[Text(piece) for piece in REPLY], standing_line="The investigators searched the house."
    ).start()
    try:
        with scripted_table(llm, "campaign", TRPG_LLM__CONTEXT_WINDOW=str(CAMPAIGN_WINDOW)) as (url, key):
            return asyncio.run(measure_campaign(url, key, llm, turns))
    finally:
        llm.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    parser.add_argument("--turns", type=int, help="Keeper turns (and as many dot commands)")
    parser.add_argument(
        "--campaign-turns", type=int, help=f"turns of the campaign ({CAMPAIGN_TURNS}; --quick: 100; 0: none)"
    )
    args = parser.parse_args()
    turns = args.turns or (15 if args.quick else 200)

    llm = FakeLlm().start()
    try:
        with scripted_table(llm, "turn") as (url, key):
            times = asyncio.run(measure_server(url, key, llm, turns))
        times.update(asyncio.run(measure_provider(llm, turns)))
    finally:
        llm.stop()

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, in-process bus)"
    print(f"turn: {turns} Keeper turns and {turns} dot commands, one member, profile {profile}")
    for label, values in times.items():
        print(
            f"  {label:18s} p50 {statistics.median(values) * 1000:7.1f} ms"
            f"   p99 {percentile(values, 0.99) * 1000:7.1f} ms"
        )
    overhead = statistics.median(times["idle"]) - statistics.median(times["model whole reply"])
    print(f"  server overhead of a Keeper turn (idle p50 - model whole reply p50): {overhead * 1000:.1f} ms")
    print(
        "  ratio Keeper turn to dot command (p50): "
        f"{statistics.median(times['idle']) / statistics.median(times['dot command']):.2f}"
    )

    campaign_turns = (
        args.campaign_turns if args.campaign_turns is not None else (100 if args.quick else CAMPAIGN_TURNS)
    )
    if campaign_turns < 40:
        return
    firsts = campaign(campaign_turns)
    early, late = statistics.median(firsts[5:16]), statistics.median(firsts[-16:-5])
    print(f"campaign: {campaign_turns} Keeper turns, a {CAMPAIGN_WINDOW}-token window, profile {profile}")
    print(f"  input to first delta p50, turns 5-15:    {early * 1000:7.1f} ms")
    print(
        f"  input to first delta p50, turns {campaign_turns - 16}-{campaign_turns - 6}: {late * 1000:7.1f} ms"
    )
    print(f"  ratio late to early: {late / early:.2f} (a fold never holds a turn up: near 1)")


if __name__ == "__main__":
    main()
