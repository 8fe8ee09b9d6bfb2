"""A client that reaches the table directly cannot pass for many addresses by writing
`X-Forwarded-For`: a forwarded address counts only when the request came from a proxy
listed in `TRPG_TRUSTED_PROXIES`, never because `TRPG_BEHIND_TLS_PROXY` is on. So
sockets from loopback that each name another address share one address's handshake
places; from a listed proxy, each forwarded address has its own. A server behind the
TLS proxy with no proxy listed says so as it starts, and a request that names a client
is not taken for loopback's, so `/metrics` through a proxy on the same host needs the
token even where loopback is allowed (docs/operations.md, "Behind a reverse proxy")."""

from __future__ import annotations

import urllib.error
import urllib.request

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server

SHARE = 4  # handshake places per address here, so that a few sockets fill one
# No silent socket of these tests is old enough to be closed to make room.
QUIET = {"TRPG_TUI__HANDSHAKES_PER_ADDRESS": str(SHARE), "TRPG_TUI__CROWDED_JOIN_TIMEOUT": "60"}

# Loopback is listed for /metrics here: a scrape from this host itself is answered, a
# request through a proxy nobody listed never passes for it.
unlisted_server = dedicated_server(TRPG_BEHIND_TLS_PROXY="1", TRPG_METRICS_ALLOWED="127.0.0.1", **QUIET)
listed_server = dedicated_server(TRPG_BEHIND_TLS_PROXY="1", TRPG_TRUSTED_PROXIES="127.0.0.1", **QUIET)


async def _forging(server, number: int) -> WsClient:
    """A socket from loopback whose upgrade request names another address."""
    return await WsClient.connect(server.ws_url, headers={"X-Forwarded-For": f"203.0.113.{number}"})


async def _join_beside_a_full_share(server, room: str) -> list[dict]:
    """`SHARE` silent sockets naming one address each, then a right key naming another:
    what the right key got before it closed (or its welcome)."""
    silent = [await _forging(server, number) for number in range(SHARE)]
    try:
        async with await _forging(server, SHARE) as player:
            await player.send({"type": "join", "key": server.env.mint(room, "Player")})
            return [await player.recv()]
    finally:
        for socket in silent:
            await socket.close()


async def test_forged_addresses_from_a_proxy_nobody_listed_are_one_address(unlisted_server, room):
    first = await _join_beside_a_full_share(unlisted_server, room)
    assert [(frame["type"], frame.get("code")) for frame in first] == [("error", "too_many_connections")]


async def test_a_listed_proxys_forwarded_addresses_each_count(listed_server, room):
    first = await _join_beside_a_full_share(listed_server, room)
    assert [frame["type"] for frame in first] == ["welcome"]


def _metrics_status(server, **headers: str) -> int:
    request = urllib.request.Request(server.ws_url.replace("ws://", "http://") + "metrics", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as refused:
        return refused.code


def test_a_proxied_request_is_not_loopbacks_when_no_proxy_is_listed(unlisted_server):
    assert _metrics_status(unlisted_server, **{"X-Forwarded-For": "203.0.113.9"}) == 403
    assert _metrics_status(unlisted_server) == 200, "a scrape on this host itself"


def test_the_start_warns_when_the_tls_proxy_is_on_and_no_proxy_is_listed(unlisted_server, listed_server):
    assert "TRPG_TRUSTED_PROXIES" in unlisted_server.log_text()
    assert "TRPG_TRUSTED_PROXIES" not in listed_server.log_text()
