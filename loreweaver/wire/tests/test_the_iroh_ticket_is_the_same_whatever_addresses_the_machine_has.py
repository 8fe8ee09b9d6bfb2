"""The Iroh ticket is the same at every start on the same data folder, IPv6 included:
`TRPG_IROH__BIND6` pins the endpoint's IPv6 socket as `TRPG_IROH__BIND` pins its IPv4
one; unset, a loopback or every-interface IPv4 bind implies its IPv6 counterpart at the
same port, and an IPv6 socket on a free port is left out of the ticket
(docs/operations.md, "Deploying"). Without that, a machine whose only interface is
loopback put `[::1]:<a new port>` in the ticket at every start."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap

import pytest
from iroh import EndpointTicket

from loreweaver.testing.clients import IrohClient
from loreweaver.testing.servers import ROOT, start_serve


def _free_udp_port(host: str, family: socket.AddressFamily) -> int:
    """A UDP port free on `host` (and, for the tests' pairs, on its other family too)."""
    for _ in range(50):
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
        with (
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as v4,
            socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as v6,
        ):
            try:
                v4.bind(("127.0.0.1", port))
                v6.bind(("::1", port))
            except OSError:
                continue
        return port
    raise AssertionError("no UDP port free on both loopbacks")


@pytest.fixture
def ipv6_loopback() -> None:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")


def _addresses(ticket: str | None) -> set[str]:
    assert ticket, "no ticket printed"
    return set(EndpointTicket.from_string(ticket).endpoint_addr().direct_addresses())


async def _two_starts(env, room: str, **binds: str) -> str:
    """The ticket of the first start, after checking the second prints it too and a
    client joins the second over it."""
    first = start_serve(env, **binds)
    yesterdays = first.banner_value("Iroh ticket: ")
    first.stop()
    second = start_serve(env, **binds)
    try:
        assert yesterdays and second.banner_value("Iroh ticket: ") == yesterdays
        async with await IrohClient.connect(yesterdays) as client:
            welcome = (await client.join(env.mint(room, "Ida")))[0]
        assert welcome["type"] == "welcome" and welcome["room"] == room
    finally:
        second.stop()
    return yesterdays


async def test_both_bind_settings_give_the_same_ticket_at_every_start(fresh_env, room, ipv6_loopback):
    port, port6 = _free_udp_port("127.0.0.1", socket.AF_INET), _free_udp_port("::1", socket.AF_INET6)
    ticket = await _two_starts(
        fresh_env, room, TRPG_IROH__BIND=f"127.0.0.1:{port}", TRPG_IROH__BIND6=f"[::1]:{port6}"
    )
    assert _addresses(ticket) == {f"127.0.0.1:{port}", f"[::1]:{port6}"}


async def test_a_loopback_bind_pins_ipv6_loopback_at_the_same_port(fresh_env, room, ipv6_loopback):
    port = _free_udp_port("127.0.0.1", socket.AF_INET)
    ticket = await _two_starts(fresh_env, room, TRPG_IROH__BIND=f"127.0.0.1:{port}")
    assert _addresses(ticket) == {f"127.0.0.1:{port}", f"[::1]:{port}"}


# Run inside a network namespace whose only interface is loopback (with a second IPv4
# address on it): the endpoint started twice on one data folder, each bind setting.
_IN_A_LOOPBACK_ONLY_NAMESPACE = textwrap.dedent(
    """
    import asyncio, json, os, sys, tempfile
    from pathlib import Path
    import django
    django.setup()
    from iroh import EndpointTicket
    from loreweaver.wire.iroh_carrier import IrohCarrier

    async def start(data_dir, bind):
        carrier = IrohCarrier(data_dir=data_dir, relay=False, bind=bind, join_timeout=5)
        ticket = await carrier.start()
        await carrier.endpoint.close()
        return ticket

    async def main():
        report = {}
        for bind in sys.argv[1:]:
            data_dir = Path(tempfile.mkdtemp())
            tickets = [await start(data_dir, bind), await start(data_dir, bind)]
            report[bind] = [EndpointTicket.from_string(t).endpoint_addr().direct_addresses() for t in tickets]
        print(json.dumps(report))

    asyncio.run(main())
    """
)


def test_on_a_loopback_only_machine_the_ticket_keeps_its_addresses(tmp_path):
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if not unshare or not ip:
        pytest.skip("needs unshare and ip to make a loopback-only network namespace")
    binds = ["127.0.0.1:45123", "10.9.9.9:45125"]
    setup = f"{ip} link set lo up && {ip} addr add 10.9.9.9/32 dev lo"
    script = tmp_path / "starts.py"
    script.write_text(_IN_A_LOOPBACK_ONLY_NAMESPACE)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        PYTHONPATH=str(ROOT),
        DJANGO_SETTINGS_MODULE="loreweaver.settings",
        TRPG_DATA_DIR=str(tmp_path / "data"),
    )
    probe = subprocess.run([unshare, "-rn", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user network namespaces are not allowed here")
    done = subprocess.run(
        [unshare, "-rn", "sh", "-c", f'{setup} && exec "$0" "$@"', sys.executable, str(script), *binds],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    first, second = report["127.0.0.1:45123"]
    assert first == second and set(first) == {"127.0.0.1:45123", "[::1]:45123"}
    # No IPv6 counterpart for another address: its IPv6 socket's free port stays out.
    first, second = report["10.9.9.9:45125"]
    assert first == second == ["10.9.9.9:45125"]
