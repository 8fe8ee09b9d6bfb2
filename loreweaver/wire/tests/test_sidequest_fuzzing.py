"""The SideQuest carrier under seeded hostile messages, as the loreweaver carriers are in
fuzz_run.py (docs/operations.md, "Hostile input"): a joined player and a joined
keeper get thousands of them, fresh connections get one before any connect (then a
refused connect and an action) or one over the size cap. Every answer is in the
contract's shape, the joined connections stay open and still play a roll, the server's
log holds no traceback, the connection gauge of `/metrics` is back at its start, and
the cap's worth of members still joins.

The budget is half of `TRPG_FUZZ_FRAMES` (default 10,000) and the seed
`TRPG_FUZZ_SEED` (default 2026); a failure names the seed so it can be replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import connections_settle, gauge, scrape
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.fuzz_frames import Case
from loreweaver.wire.tests.sidequest_client import SideQuestClient
from loreweaver.wire.tests.sidequest_fuzz_messages import SideQuestFuzzer

FRAMES = int(os.environ.get("TRPG_FUZZ_FRAMES", "10000")) // 2
SEED = int(os.environ.get("TRPG_FUZZ_SEED", "2026"))
CAP = 4
REFILL_SECONDS = 0.5

sidequest_fuzz_server = dedicated_server(
    TRPG_TUI__MAX_CONNECTIONS=str(CAP),
    TRPG_TUI__HANDSHAKE_CONNECTIONS=str(CAP),  # the whole cap connects before it joins
    TRPG_RATE__BAD_KEYS_FREE="100000",  # the fresh connections' refused keys cost no waiting
    TRPG_RATE__REFILL_SECONDS=str(REFILL_SECONDS),
)


async def _send(client: SideQuestClient, case: Case) -> None:
    if case.kind == "bad_utf8":
        with contextlib.suppress(Exception):  # the client library may refuse to send it as text
            await client.socket.send(case.payload, text=True)
    else:
        await client.send_raw(case.payload)


async def _alone(server, case: Case) -> tuple[list[dict], int | None]:
    """One case as the first message of a fresh connection, then (unless it closed) a
    refused connect and an action; what came back, and the close code."""
    client = await SideQuestClient.open(server)
    try:
        await client.send_raw(case.payload)
        if case.kind == "before_join":
            await client.connect("Stranger", key="not-a-key")
            await client.act("I try the door.")
        return await client.until_closed(), client.close_code
    finally:
        await client.close()


async def _reading(client: SideQuestClient) -> None:
    while True:
        await client.recv(timeout=600)


async def _plays_a_roll(client: SideQuestClient, seed: int) -> None:
    """The connection still plays: a roll whose total names the seed comes back. Asked
    again while the room's rate limit turns it away, within a deadline."""
    expected = f": {seed + 1}"
    deadline = asyncio.get_running_loop().time() + 90
    while asyncio.get_running_loop().time() < deadline:
        start = len(client.seen)
        await client.act(f".r 1d1+{seed}")
        try:
            async with asyncio.timeout(max(5.0, 4 * REFILL_SECONDS)):
                while True:
                    fresh = [m for m in client.seen[start:] if m["type"] == "NARRATION"]
                    if any(expected in m["payload"]["text"] for m in fresh):
                        return
                    await asyncio.sleep(0.05)  # the reader task fills `seen`
        except TimeoutError:
            continue
    raise AssertionError(f"seed {seed}: no roll answered after the fuzz")


async def test_fuzzed_sidequest_messages_break_nothing(sidequest_fuzz_server, room):
    server, env = sidequest_fuzz_server, sidequest_fuzz_server.env
    fuzzer = SideQuestFuzzer(SEED)
    cases, gm_cases = fuzzer.cases(FRAMES), fuzzer.gm_cases(max(20, FRAMES // 20))
    start = {c: gauge(scrape(server), "loreweaver_connections", carrier=c) for c in ("sidequest", "ws")}

    player = await SideQuestClient.open(server, env.mint(room, "Fuzzer"))
    keeper = await SideQuestClient.open(server, env.mint(room, "Fuzz Keeper", "keeper"))
    await player.joined("Fuzzer")
    await keeper.joined("Fuzz Keeper")
    readers = [asyncio.create_task(_reading(client)) for client in (player, keeper)]
    try:
        for number, case in enumerate(cases):
            assert not any(r.done() for r in readers), f"seed {SEED}: a connection ended at case {number}"
            if case.kind in ("before_join", "oversized"):
                received, code = await _alone(server, case)
                assert received and {m["type"] for m in received} == {"ERROR"}, (SEED, number, received)
                assert code in (1000, 1009), (SEED, number, code)
            else:
                await _send(player, case)
        for case in gm_cases:
            await _send(keeper, case)
        await _plays_a_roll(player, SEED)
        assert not any(r.done() for r in readers), f"seed {SEED}: a joined connection ended"
    finally:
        for reader in readers:
            reader.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await reader
        await player.close()
        await keeper.close()

    errors = sum(m["type"] == "ERROR" for m in player.seen)
    assert errors > len(cases) // 4, f"seed {SEED}: the cases reached the server ({errors} errors)"
    for carrier, value in start.items():
        assert await connections_settle(server, carrier, value) == value, (SEED, carrier)
    log = server.log_text()
    assert "Traceback" not in log and "Exception inside application" not in log, (SEED, log[-4000:])

    # No slot and no presence is left behind: the cap's worth joins, on both carriers.
    weavers = [await WsClient.connect(server.ws_url) for _ in range(CAP // 2)]
    questers = [await SideQuestClient.open(server, env.mint(room, f"Quester {n}")) for n in range(CAP // 2)]
    try:
        joins = await asyncio.gather(
            *(client.join(env.mint(room, f"Weaver {n}")) for n, client in enumerate(weavers)),
            *(client.joined(f"Quester {n}") for n, client in enumerate(questers)),
        )
        assert [frames[0]["type"] for frames in joins[: CAP // 2]] == ["welcome"] * (CAP // 2)
        settled = await weavers[0].expect("presence", online=CAP, timeout=15)
        names = sorted(p["name"] for p in settled["players"])
        assert names == sorted(
            [f"Weaver {n}" for n in range(CAP // 2)] + [f"Quester {n}" for n in range(CAP // 2)]
        )
    finally:
        for client in [*weavers, *questers]:
            await client.close()
