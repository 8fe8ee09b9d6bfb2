"""The client's own address behind a reverse proxy the operator trusts.

Behind a proxy every connection comes from the proxy, so limits per address, the admin
lockout, the addresses `/metrics` answers (`TRPG_METRICS_ALLOWED`) and the logs would
all see one address: the proxy's. With `TRPG_TRUSTED_PROXIES`, a connection from a
listed proxy is taken to come from the address the proxies forwarded
(`X-Forwarded-For`, read from the right, past every trusted hop); from anywhere else
the header is ignored, since anyone can write it.

`TRPG_BEHIND_TLS_PROXY` alone trusts no proxy (a client on a trusted network could name
any address it liked): the start warns (loreweaver/wire/deploy.py), and meanwhile a
request that carries the header is taken to come from `UNKNOWN`, one address for every
client behind the proxy, and never loopback, so `/metrics` through a proxy on the same
host still needs its token or a listed address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# An address no rule trusts (never loopback): the client behind a proxy that sent a
# header this cannot read.
UNKNOWN = "0.0.0.0"


def networks(values: Iterable[str]) -> list[Network]:
    """The networks of a list like `TRPG_TRUSTED_PROXIES` (an address is a network of one);
    ValueError names a value that is neither."""
    return [ipaddress.ip_network(value.strip(), strict=False) for value in values if value.strip()]


def is_among(address: str, trusted: list[Network]) -> bool:
    """Whether `address` is in one of the networks `trusted` (never for what is not an
    address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str, forwarded_for: str, trusted: list[Network]) -> str:
    """Who is behind `peer`: itself unless it is a trusted proxy; else the right-most
    address of `forwarded_for` that is not a trusted proxy (`UNKNOWN` when an entry is
    not an address; `peer` when every entry is a trusted address)."""
    if not is_among(peer, trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    if not hops:
        return peer  # the proxy's own request (its health check), or a process beside it
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return UNKNOWN
        if not is_among(hop, trusted):
            return hop
    # Every hop is a trusted address: nothing a stranger wrote can be told apart from
    # what the proxies wrote, so the client is taken to be the proxy itself (never a
    # loopback address written into the header by a client outside).
    return peer


def forwarded_for(application: Callable) -> Callable:
    """ASGI middleware: HTTP and WebSocket scopes carry the client's own address as
    `client` when they came through a trusted proxy, or `UNKNOWN` (see the module);
    Django's REMOTE_ADDR and the carriers' peer follow from it."""
    trusted = networks(settings.TRPG_TRUSTED_PROXIES)
    if not trusted and not settings.TRPG_BEHIND_TLS_PROXY:
        return application

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("client"):
            peer, port = scope["client"][0], scope["client"][1]
            header = b",".join(
                value for name, value in scope.get("headers", []) if name == b"x-forwarded-for"
            )
            if trusted:
                client = client_address(peer, header.decode("latin-1"), trusted)
            else:  # behind the TLS proxy, none listed (see the module)
                client = UNKNOWN if header.strip() else peer
            if client != peer:
                scope = {**scope, "client": (client, port)}
        await application(scope, receive, send)

    return app
