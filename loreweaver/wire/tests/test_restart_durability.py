"""Nothing acknowledged is lost: kill -9, restart, and the replay is the same."""

from __future__ import annotations

import socket

from iroh import EndpointTicket

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import start_serve


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_a_rejoin_after_kill_9_replays_the_same_lines_ids_and_names(fresh_env):
    keeper_key = fresh_env.mint("durable", "Keeper", "keeper")
    player_key = fresh_env.mint("durable", "Player")
    server = start_serve(fresh_env)
    try:
        async with (
            await WsClient.connect(server.ws_url) as keeper,
            await IrohClient.connect(server.ticket) as player,
        ):
            await keeper.join(keeper_key)
            await player.join(player_key)
            await keeper.say(".bot off")  # the keeper narrates: the story is the lines below
            await keeper.expect("narrative", speaker="system")
            acknowledged = []
            for n in range(6):
                speaker = keeper if n % 2 else player
                await speaker.say(f"line {n} of the night")
                acknowledged.append(await keeper.expect("narrative", text=f"line {n} of the night"))
            server.kill9()
    finally:
        server.stop()

    restarted = start_serve(fresh_env)
    try:
        async with await IrohClient.connect(restarted.ticket) as player:
            replay = [f for f in await player.join(player_key) if f["type"] == "narrative"]
    finally:
        restarted.stop()
    assert replay == acknowledged
    assert [f["name"] for f in replay] == ["Player", "Keeper"] * 3


async def test_the_iroh_ticket_is_stable_across_restarts(fresh_env):
    port = _free_udp_port()
    first = start_serve(fresh_env, TRPG_IROH__BIND=f"127.0.0.1:{port}")
    first.stop()
    second = start_serve(fresh_env, TRPG_IROH__BIND=f"127.0.0.1:{port}")
    try:
        assert second.ticket == first.ticket
        saved = (fresh_env.data_dir / "iroh-ticket.txt").read_text().strip()
        assert saved == second.ticket
        key = fresh_env.mint("stable", "Sam")
        async with await IrohClient.connect(first.ticket) as client:
            frames = await client.join(key)
        assert frames[0]["type"] == "welcome"
    finally:
        second.stop()


async def test_an_ephemeral_port_keeps_the_endpoint_id(fresh_env):
    first = start_serve(fresh_env)
    first.stop()
    second = start_serve(fresh_env)
    second.stop()
    ids = {EndpointTicket.from_string(s.ticket).endpoint_addr().id().to_bytes() for s in (first, second)}
    assert len(ids) == 1
