"""The fuzz suite's run, one carrier at a time (`test_fuzzing_over_*.py`, a module and
a server per carrier so the two run side by side): thousands of seeded hostile messages
(docs/operations.md, "Hostile input"). Afterwards the server's log holds no traceback,
no connection was closed with 1011, no slot or presence is left behind, and a normal
roll is answered.

`TRPG_FUZZ_FRAMES` (default 10,000 per carrier) and `TRPG_FUZZ_SEED` (default 2026)
change the budget and the cases; a failure names the seed so it can be replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from iroh import IrohError

from loreweaver.testing.clients import Client, Closed, WsClient, connect
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.fuzz_frames import Case, FrameFuzzer

FRAMES = int(os.environ.get("TRPG_FUZZ_FRAMES", "10000"))
SEED = int(os.environ.get("TRPG_FUZZ_SEED", "2026"))
CAP = 4
SYNC_EVERY = 400
SYNC = 10**15  # above the pings' `t` among the cases


# The whole cap may shake hands at once: the test connects it all before joining. Over
# Iroh an empty case is a blank line, which the server skips while it waits for the
# join, so that case ends with join_timeout: after two seconds, not the default ten.
# The offline Keeper streams without its model-like pauses: the thousands of turns the
# cases start would otherwise wait about half a minute in them.
def fuzz_server():
    """The module-scoped fixture of a server for fuzzing."""
    return dedicated_server(
        TRPG_TUI__MAX_CONNECTIONS=str(CAP),
        TRPG_TUI__HANDSHAKE_CONNECTIONS=str(CAP),
        TRPG_TUI__JOIN_TIMEOUT="2",
        TRPG_OFFLINE__STREAM_PAUSE="0",
    )


async def _send(client: Client, case: Case) -> None:
    if isinstance(client, WsClient):
        if case.kind == "bad_utf8":
            await client.send_raw_text(case.payload)
        else:
            await client.send(case.payload)
        return
    data = case.payload if isinstance(case.payload, bytes) else case.payload.encode("utf-8")
    await client.send(data.replace(b"\n", b" ") + b"\n")  # one case, one line


async def _before_join(carrier: str, server, case: Case) -> tuple[list[dict], int | None]:
    """Send one case as the first message of a new connection; what came back, and the
    WebSocket close code."""
    client = await connect(carrier, server)
    try:
        with contextlib.suppress(IrohError):
            await _send(client, case)
        frames = await client.wait_closed(timeout=15)
    finally:
        await client.close()
    return frames, getattr(client, "close_code", None)


async def _arrival(
    replies: list[dict], reader: asyncio.Task, wanted, since: int = 0, timeout: float = 300
) -> int:
    """The index of the first reply from `since` on that is `wanted`, once it arrived."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for index in range(since, len(replies)):
            if wanted(replies[index]):
                return index
        since = len(replies)
        assert not reader.done(), "the fuzzed connection was closed"
        await asyncio.sleep(0.05)
    raise AssertionError("not answered in time")


async def fuzzed_messages_break_nothing(fuzz_server, room: str, carrier: str) -> None:
    """Send the carrier's seeded cases and check that nothing broke (module docstring)."""
    seed = SEED + (carrier == "iroh")
    cases = FrameFuzzer(seed).cases(FRAMES)
    replies: list[dict] = []
    fuzzer = await connect(carrier, fuzz_server)
    await fuzzer.join(fuzz_server.env.mint(room, "Fuzzer"))

    async def read() -> None:
        while True:
            replies.append(await fuzzer.recv(timeout=600))

    reader = asyncio.create_task(read())
    try:
        for number, case in enumerate(cases):
            if reader.done():
                raise AssertionError(f"seed {seed}: the connection ended at case {number}: {case}")
            if case.kind == "before_join":
                frames, close_code = await _before_join(carrier, fuzz_server, case)
                assert [f["type"] for f in frames] == ["error"], (seed, number, case, frames)
                assert close_code in (None, 1000, 1009), (seed, number, case, close_code)
            else:
                await _send(fuzzer, case)
            if number % SYNC_EVERY == SYNC_EVERY - 1:
                # A client that leaves a thousand frames unread is dropped as stalled
                # (docs/operations.md): read up to here before sending more.
                await fuzzer.send({"type": "ping", "t": SYNC + number})
                await _arrival(replies, reader, lambda r, t=SYNC + number: r.get("t") == t, timeout=60)
        await fuzzer.send({"type": "ping", "t": 42})
        # Inputs are played in order: once this line is back, every fuzzed input was played.
        await fuzzer.say(f"the end of seed {seed}")
        end = await _arrival(replies, reader, lambda r: r.get("text") == f"the end of seed {seed}")
        await fuzzer.say(".r 1d6")
        roll = await _arrival(replies, reader, lambda r: r["type"] == "dice", since=end)
        assert replies[roll]["total"] in range(1, 7)
        assert any(r["type"] == "pong" and r["t"] == 42 for r in replies), f"seed {seed}: no pong"
    finally:
        reader.cancel()
        with contextlib.suppress(Closed, asyncio.CancelledError):
            await reader
        await fuzzer.close()

    log = fuzz_server.log_text()
    assert "Traceback" not in log and "Exception inside application" not in log, (seed, log[-4000:])
    assert sum(r["type"] == "error" for r in replies) > len(cases) // 3, "the cases reached the server"

    # No slot and no presence is left behind: the cap's worth of members join at once,
    # and they see only each other.
    keys = [fuzz_server.env.mint(room, f"After {n}") for n in range(CAP)]
    clients = [await connect(carrier, fuzz_server) for _ in keys]
    try:
        joins = await asyncio.gather(*(c.join(k) for c, k in zip(clients, keys, strict=True)))
        assert [frames[0]["type"] for frames in joins] == ["welcome"] * CAP
        settled = await clients[-1].expect("presence", online=CAP, timeout=10)
        assert sorted(p["name"] for p in settled["players"]) == [f"After {n}" for n in range(CAP)]
    finally:
        for client in clients:
            await client.close()
