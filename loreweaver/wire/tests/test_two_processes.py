"""Several server processes on one Redis and one Postgres act as one table (ARCHITECTURE
"Cross-process truth"): two daphne processes and the Iroh sidecar."""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import holding_the_turn, start_iroh_sidecar, start_serve

LIMITED = {"TRPG_RATE__REFILL_SECONDS": "60"}


@pytest.fixture(scope="module")
def processes(hosted_env):
    web = start_serve(hosted_env, "--no-iroh", **LIMITED)
    web2 = start_serve(hosted_env, "--no-iroh", **LIMITED)
    sidecar = start_iroh_sidecar(hosted_env, **LIMITED)
    assert len({web.pid, web2.pid, sidecar.pid}) == 3
    yield web, web2, sidecar
    for process in (web, web2, sidecar):
        process.stop()


async def test_members_on_three_processes_share_lines_and_presence(processes, room):
    web, web2, sidecar = processes
    env = web.env
    keys = [env.mint(room, name) for name in ("Ada", "Bo", "Cy")]
    async with (
        await WsClient.connect(web.ws_url) as ada,
        await IrohClient.connect(sidecar.ticket) as bo,
        await WsClient.connect(web2.ws_url) as cy,
    ):
        await ada.join(keys[0])
        await bo.join(keys[1])
        joined = await cy.join(keys[2])
        presence = next(f for f in joined if f["type"] == "presence")
        assert [p["name"] for p in presence["players"]] == ["Ada", "Bo", "Cy"]
        assert (await ada.expect("presence", online=3))["players"] == presence["players"]
        assert (await bo.expect("presence", online=3))["players"] == presence["players"]

        await bo.say("From the sidecar.")
        lines = [await client.expect("narrative") for client in (ada, bo, cy)]
        assert lines[0] == lines[1] == lines[2]
        assert lines[0]["name"] == "Bo" and lines[0]["text"] == "From the sidecar."

        await cy.close()
        after = await bo.expect("presence", online=2)
        assert [p["name"] for p in after["players"]] == ["Ada", "Bo"]


async def test_the_rate_limit_is_shared_by_a_members_connections_on_two_processes(processes, room):
    web, _web2, sidecar = processes
    key = web.env.mint(room, "Twice")
    async with (
        await WsClient.connect(web.ws_url) as on_web,
        await IrohClient.connect(sidecar.ticket) as on_sidecar,
    ):
        await on_web.join(key)
        await on_sidecar.join(key)
        for n in range(5):  # the member's whole burst, split over both processes
            client = on_web if n % 2 else on_sidecar
            await client.say(f"burst {n}")
            await on_web.expect("narrative", text=f"burst {n}")
        await on_web.say("one too many")
        assert (await on_web.expect("error"))["code"] == "rate_limited"
        await on_sidecar.say("one too many")
        assert (await on_sidecar.expect("error"))["code"] == "rate_limited"


async def test_turns_from_different_processes_run_one_at_a_time_in_arrival_order(processes, room):
    web, web2, sidecar = processes
    env = web.env
    names = ["Uno", "Dos", "Tres"]
    keys = [env.mint(room, name) for name in names]
    async with (
        await WsClient.connect(web.ws_url) as uno,
        await IrohClient.connect(sidecar.ticket) as dos,
        await WsClient.connect(web2.ws_url) as tres,
    ):
        clients = [uno, dos, tres]
        for client, key in zip(clients, keys, strict=True):
            await client.join(key)
        holding, release = asyncio.Event(), asyncio.Event()

        async def hold():
            async with holding_the_turn(env, room, "Holder"):
                holding.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await holding.wait()
        for client, name in zip(clients, names, strict=True):
            await client.say(f"{name} acts")
            await client.expect("system")  # queued: proves each input is waiting now
        release.set()
        await holder
        heard = [(await uno.expect("narrative", speaker="player"))["text"] for _ in names]
    assert heard == [f"{name} acts" for name in names]
