"""An Iroh invitation keeps working across restarts: two starts on the same data folder
print the same ticket, and yesterday's ticket joins today's server. The endpoint binds
UDP 4433 by default, and gives way (with a warning) when that port is taken
(docs/operations.md, "Deploying")."""

from __future__ import annotations

import contextlib
import logging
import socket

import pytest

from loreweaver.testing.clients import IrohClient
from loreweaver.testing.servers import start_serve
from loreweaver.wire import iroh_carrier
from loreweaver.wire.iroh_carrier import IrohCarrier


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_two_starts_on_the_same_data_folder_print_the_same_ticket(fresh_env, room):
    bind = f"127.0.0.1:{_free_udp_port()}"
    first = start_serve(fresh_env, TRPG_IROH__BIND=bind)
    yesterdays = first.banner_value("Iroh ticket: ")
    first.stop()
    second = start_serve(fresh_env, TRPG_IROH__BIND=bind)
    try:
        assert yesterdays and second.banner_value("Iroh ticket: ") == yesterdays
        async with await IrohClient.connect(yesterdays) as client:
            welcome = (await client.join(fresh_env.mint(room, "Ida")))[0]
        assert welcome["type"] == "welcome" and welcome["room"] == room
    finally:
        second.stop()


async def _bound_port(carrier: IrohCarrier) -> int:
    await carrier.start()
    try:
        return int(carrier.endpoint.bound_sockets()[0].rpartition(":")[2])
    finally:
        await carrier.endpoint.close()


def _default_carrier(tmp_path) -> IrohCarrier:
    return IrohCarrier(data_dir=tmp_path, relay=False, join_timeout=5)


async def test_the_endpoint_binds_udp_4433_by_default(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind(("0.0.0.0", 4433))
        except OSError:
            pytest.skip("another program holds UDP 4433 on this machine")
    assert iroh_carrier.DEFAULT_BIND == "0.0.0.0:4433"
    assert await _bound_port(_default_carrier(tmp_path)) == 4433


async def test_a_taken_default_port_gives_way_with_a_warning(tmp_path, caplog):
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        with contextlib.suppress(OSError):  # someone else holds it: taken all the same
            holder.bind(("0.0.0.0", 4433))
        with caplog.at_level(logging.WARNING, logger=iroh_carrier.__name__):
            port = await _bound_port(_default_carrier(tmp_path))
    finally:
        holder.close()
    assert port != 4433
    assert "UDP 0.0.0.0:4433 is in use" in caplog.text and "TRPG_IROH__BIND" in caplog.text


async def test_a_taken_address_the_operator_chose_stops_the_start(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("127.0.0.1", 0))
        taken = f"127.0.0.1:{holder.getsockname()[1]}"
        carrier = IrohCarrier(data_dir=tmp_path, relay=False, bind=taken, join_timeout=5)
        with pytest.raises(iroh_carrier.IrohError):
            await carrier.start()
