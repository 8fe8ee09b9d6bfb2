"""Which model endpoints the server connects to, and for whom.

The operator's own endpoints (the console's model page, the `TRPG_LLM__*` and
`TRPG_IMAGEGEN__*` environment) are trusted. An endpoint a room's keeper chose is held
to the operator's policy (`TRPG_LLM__ALLOWED_ENDPOINTS`): the catalog's public
endpoints, what the operator lists, and, on the embedded profile (a laptop, no
`DATABASE_URL` or `REDIS_URL`), loopback and private addresses. For everyone, the
operator included, link-local (cloud metadata), unspecified, multicast and reserved
addresses are never reached, and URLs with a user name or password are refused.

The same machinery fetches packs for `.pack install` (`PACKS`, a `Policy` of its own:
the operator's `TRPG_PACKS__ALLOWED_SOURCES`; on the embedded profile also any public
address; loopback and private addresses only when listed, on every profile).

The check is made when an endpoint is saved and again for every connection the server
opens (the clients of `keeper.llm.guarded_http`): the host is resolved,
every address it resolves to is checked, and the connection is made to an address
that was checked, so a name that later resolves inside is refused too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from base.i18n import Refusal, _, say
from keeper.llm.providers import CATALOG

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Why an endpoint is refused, by rule. The first group holds for the operator too.
RULES = {
    "link_local": _("link-local addresses, such as cloud metadata, are never allowed"),
    "unspecified": _("unspecified, multicast and reserved addresses are never allowed"),
    "userinfo": _("addresses with a user name or password are not accepted"),
    "scheme": _("only http:// and https:// endpoints are accepted"),
    "loopback": _("loopback addresses are for the operator only"),
    "private": _("private network addresses are for the operator only"),
    "not_listed": _("it is not one of the endpoints the operator allows rooms to use"),
}
NEVER = frozenset({"link_local", "unspecified", "userinfo", "scheme"})
SETTING = "TRPG_LLM__ALLOWED_ENDPOINTS"


@dataclass(frozen=True)
class Policy:
    """Whom a room's connections may reach beyond the operator's list (`setting`, read
    from `attribute` of the settings): the catalog's public endpoints (`catalog`), any
    public address on the embedded profile (`public_when_embedded`), loopback and
    private addresses on the embedded profile (`private_when_embedded`)."""

    setting: str
    attribute: str
    catalog: bool
    public_when_embedded: bool
    private_when_embedded: bool


MODELS = Policy(SETTING, "TRPG_LLM_ALLOWED_ENDPOINTS", True, False, True)
# Pack downloads: a laptop's owner fetches from anywhere public; what sits on the
# server's own network is reached only when the operator lists it.
PACKS = Policy("TRPG_PACKS__ALLOWED_SOURCES", "TRPG_PACKS_ALLOWED_SOURCES", False, True, False)


class EndpointRefused(Refusal):
    """An endpoint the policy refuses; `rule` names why (a key of `RULES`).

    Raised while the SDK opens a connection, it is the SDK's own error type as well
    (`_sdk_refusal`), so that the SDK hands it back at once instead of retrying it."""

    def __init__(self, endpoint: str, rule: str, setting: str = SETTING) -> None:
        super().__init__("{endpoint}: {rule}", endpoint=endpoint, rule=RULES[rule])
        self.endpoint, self.rule, self.setting = endpoint, rule, setting

    def message(self, locale: str) -> str:
        """The refusal in `locale`, naming the endpoint, the rule and, when the operator
        could allow it, the setting that does."""
        why = say(locale, RULES[self.rule])
        if self.rule in NEVER:
            return say(
                locale,
                _("This server does not connect to {endpoint} ({why})."),
                endpoint=self.endpoint,
                why=why,
            )
        if self.setting != SETTING:
            return say(
                locale,
                _(
                    "This server does not fetch from {endpoint} ({why}). "
                    "The operator can allow it with {setting}."
                ),
                endpoint=self.endpoint,
                why=why,
                setting=self.setting,
            )
        return say(
            locale,
            _(
                "This server does not let rooms use the endpoint {endpoint} ({why}). "
                "The operator can allow it with TRPG_LLM__ALLOWED_ENDPOINTS."
            ),
            endpoint=self.endpoint,
            why=why,
        )


def embedded() -> bool:
    """Whether this is the embedded profile (one process, SQLite, no Redis)."""
    return not (settings.DATABASE_URL or settings.REDIS_URL)


def literal_address(host: str) -> Address | None:
    """`host` as an address when it is one, in any form the system resolver reads as
    one (`2852039166`, `0xa9fea9fe`, `169.254.43518` are IPv4 addresses too)."""
    bare = host.strip("[]")
    try:
        return ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        pass
    if bare and all(c in "0123456789abcdefxABCDEFX." for c in bare) and any(c.isdigit() for c in bare):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(bare))
        except OSError:
            return None
    return None


def _unwrapped(address: Address) -> Address:
    """The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, else itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in ipaddress.IPv6Network("64:ff9b::/96"):
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def kind_of(address: Address) -> str:
    """`link_local`, `unspecified` (also multicast and reserved), `loopback`, `private`
    or `global`."""
    address = _unwrapped(address)
    if address.is_link_local:
        return "link_local"
    if address.is_loopback:  # before "reserved": IPv6's ::1 lies in the reserved ::/8
        return "loopback"
    if (
        address.is_unspecified
        or address.is_multicast
        or address.is_reserved
        or (isinstance(address, ipaddress.IPv4Address) and address in ipaddress.IPv4Network("0.0.0.0/8"))
    ):
        return "unspecified"
    return "global" if address.is_global else "private"


@dataclass(frozen=True)
class _Pattern:
    """One item of the operator's list: a URL prefix, a network, `*.domain`, a host
    (with an optional port), or `*` (any public address)."""

    text: str

    def matches(self, host: str, port: int, url: str | None) -> bool:
        item = self.text
        if item.startswith(("http://", "https://")):
            if url is not None:
                return url.lower().startswith(item.lower().rstrip("/")) and _boundary(url, item)
            parts = urlsplit(item)
            return (parts.hostname or "") == host and (parts.port or _default_port(parts.scheme)) == port
        pattern_host, pattern_port = _split_host_port(item)
        if pattern_port is not None and pattern_port != port:
            return False
        if pattern_host.startswith("*."):
            return host.endswith(pattern_host[1:])
        if "/" in pattern_host:
            address = literal_address(host)
            try:
                return address is not None and _unwrapped(address) in ipaddress.ip_network(
                    pattern_host, strict=False
                )
            except ValueError:
                return False
        listed = literal_address(pattern_host)
        address = literal_address(host)
        if listed is not None and address is not None:
            return _unwrapped(listed) == _unwrapped(address)
        return pattern_host == host


def _boundary(url: str, prefix: str) -> bool:
    # `https://llm.example.com` must not also allow `https://llm.example.com.evil.org`.
    rest = url[len(prefix.rstrip("/")) :]
    return rest == "" or rest[0] in "/?#" or prefix.endswith("/")


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _split_host_port(item: str) -> tuple[str, int | None]:
    item = item.strip().lower()
    if item.startswith("["):
        host, _sep, rest = item[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        return host, int(port) if port.isascii() and port.isdigit() else None
    if item.count(":") == 1:
        host, _sep, port = item.partition(":")
        return host, int(port) if port.isascii() and port.isdigit() else None
    return item, None


def _listed(policy: Policy = MODELS) -> list[_Pattern]:
    return [_Pattern(item.strip().lower()) for item in getattr(settings, policy.attribute) if item.strip()]


def _catalog_hosts() -> set[tuple[str, int]]:
    """The catalog's public endpoints (the https ones: local providers are not)."""
    hosts = set()
    for provider in CATALOG.values():
        parts = urlsplit(provider.base_url)
        if parts.scheme == "https" and parts.hostname:
            hosts.add((parts.hostname, parts.port or 443))
    return hosts


@dataclass(frozen=True)
class Target:
    """Where a URL connects: its host (lower case, no brackets), port and the text
    refusals name it by."""

    host: str
    port: int
    shown: str


def target_of(url: str) -> Target:
    """Parse an endpoint URL; refuses (`EndpointRefused`) what can never be used."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise EndpointRefused(url[:100], "scheme") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(url[:100], "scheme")
    host = parts.hostname.lower()
    port = port or _default_port(parts.scheme.lower())
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise EndpointRefused(shown, "userinfo")
    return Target(host, port, shown)


def judge(
    target: Target,
    addresses: Iterable[Address],
    *,
    operator: bool,
    url: str | None = None,
    policy: Policy = MODELS,
) -> None:
    """Refuse (`EndpointRefused`) unless every address `target` resolves to may be
    reached: by anyone, and, unless `operator`, by a room (under `policy`)."""
    kinds = {kind_of(address) for address in addresses}
    for never in ("link_local", "unspecified"):
        if never in kinds:
            raise EndpointRefused(target.shown, never, policy.setting)
    if operator or not kinds:
        return
    listed = _listed(policy)
    if any(pattern.matches(target.host, target.port, url) for pattern in listed):
        return
    if kinds == {"global"}:
        if any(p.text == "*" for p in listed) or (policy.public_when_embedded and embedded()):
            return
        if policy.catalog and (target.host, target.port) in _catalog_hosts():
            return
    elif policy.private_when_embedded and embedded() and kinds <= {"loopback", "private"}:
        return
    for kind in ("loopback", "private"):
        if kind in kinds:
            raise EndpointRefused(target.shown, kind, policy.setting)
    raise EndpointRefused(target.shown, "not_listed", policy.setting)


def resolve_host(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to (an address resolves to itself)."""
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def vet(url: str, *, operator: bool) -> None:
    """Check an endpoint before it is saved or asked (blocking: it may resolve a name).
    A name that does not resolve now passes here; the connection is checked again."""
    target = target_of(url)
    try:
        addresses = resolve_host(target.host, target.port)
    except OSError:
        addresses = []
    if not addresses and not operator:
        # Unresolvable now: at least the name itself must be allowed for rooms.
        judge(target, [ipaddress.IPv4Address("8.8.8.8")], operator=False, url=url)
        return
    judge(target, addresses, operator=operator, url=url)


def refusal_in(failure: BaseException | None) -> EndpointRefused | None:
    """The policy's refusal behind `failure` (through its causes), if that is what it was."""
    seen = 0
    while failure is not None and seen < 10:
        if isinstance(failure, EndpointRefused):
            return failure
        failure = failure.__cause__ or failure.__context__
        seen += 1
    return None
