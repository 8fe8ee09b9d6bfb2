"""Behind a reverse proxy the operator trusts (`TRPG_TRUSTED_PROXIES`), the client's own
address counts: `/metrics` through the proxy answers the addresses the operator listed
(`TRPG_METRICS_ALLOWED`) and the token, never the proxy's own address, `/readyz` tells
a stranger only what is down, and one address's wrong admin passwords do not lock out
the operator's address. From anywhere else `X-Forwarded-For` is ignored
(docs/operations.md, "Behind a reverse proxy")."""

from __future__ import annotations

import json
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

from loreweaver.ops.forwarded import UNKNOWN, client_address, networks
from loreweaver.testing.metrics import http_get
from loreweaver.testing.operator_http import create_superuser
from loreweaver.testing.servers import dedicated_server

TOKEN = secrets.token_urlsafe(24)
ATTACKER, OPERATOR, SCRAPER = "203.0.113.9", "198.51.100.7", "198.51.100.20"

proxied_server = dedicated_server(
    TRPG_TRUSTED_PROXIES="127.0.0.1", TRPG_METRICS_TOKEN=TOKEN, TRPG_METRICS_ALLOWED=SCRAPER
)
# No proxy trusted: whatever a caller writes in X-Forwarded-For, it is its own address.
unproxied_server = dedicated_server(TRPG_METRICS_ALLOWED=SCRAPER)


def _get(server, path: str, **headers: str) -> tuple[int, bytes]:
    return http_get(server.ws_url.replace("ws://", "http://").rstrip("/") + path, headers)


class _Browser:
    """A browser behind the proxy: its requests carry the address the proxy saw."""

    def __init__(self, server, address: str) -> None:
        self.base = server.ws_url.replace("ws://", "http://").rstrip("/")
        self.address = address
        self.cookies = CookieJar()

    def login(self, username: str, password: str) -> int:
        """Post the admin login form; the status of the answer (302: logged in)."""
        page = self._open(urllib.request.Request(self.base + "/admin/login/"))[1].decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = {"username": username, "password": password, "next": "/admin/", "csrfmiddlewaretoken": token}
        request = urllib.request.Request(
            self.base + "/admin/login/?next=/admin/",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Referer": self.base + "/admin/login/"},
        )
        return self._open(request)[0]

    def _open(self, request: urllib.request.Request) -> tuple[int, bytes]:
        request.add_header("X-Forwarded-For", self.address)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect())
        try:
            with opener.open(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.read()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_metrics_through_the_proxy_answer_a_listed_address_or_the_token(proxied_server):
    assert _get(proxied_server, "/metrics", **{"X-Forwarded-For": ATTACKER})[0] == 403
    status, body = _get(
        proxied_server, "/metrics", **{"X-Forwarded-For": ATTACKER, "Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200 and b"loreweaver_" in body
    status, body = _get(proxied_server, "/metrics", **{"X-Forwarded-For": SCRAPER})
    assert status == 200 and b"loreweaver_" in body, "the scraper the operator listed"
    assert _get(proxied_server, "/metrics")[0] == 403, "the proxy's own address (loopback) is not listed"


def test_a_forwarded_address_is_ignored_from_a_peer_that_is_not_a_trusted_proxy(unproxied_server):
    # No proxy is trusted: naming the listed scraper in the header changes nothing.
    assert _get(unproxied_server, "/metrics", **{"X-Forwarded-For": SCRAPER})[0] == 403
    status, body = _get(unproxied_server, "/readyz", **{"X-Forwarded-For": SCRAPER})
    assert status == 200 and "checks" not in json.loads(body)


def test_readyz_tells_a_stranger_what_is_down_and_a_trusted_caller_why(proxied_server):
    for stranger_headers in ({"X-Forwarded-For": ATTACKER}, {}):  # {}: the proxy itself, on loopback
        status, body = _get(proxied_server, "/readyz", **stranger_headers)
        stranger = json.loads(body)
        assert status == 200 and stranger == {"status": "ready", "down": [], "warnings": stranger["warnings"]}
    status, body = _get(proxied_server, "/readyz", **{"X-Forwarded-For": SCRAPER})
    assert status == 200 and json.loads(body)["checks"]["database"] == "ok"


def test_one_addresss_wrong_passwords_do_not_lock_out_the_operators_address(proxied_server):
    username, password = create_superuser(proxied_server.env)
    attacker = _Browser(proxied_server, ATTACKER)
    answers = [attacker.login(username, "wrong") for _ in range(5)]
    assert answers[-1] == 429 and attacker.login(username, password) == 429, "that address is locked out"
    assert _Browser(proxied_server, OPERATOR).login(username, password) == 302, "the operator logs in"


def test_the_client_is_read_from_the_right_past_every_trusted_hop():
    trusted = networks(["127.0.0.1", "10.0.0.0/8"])
    assert client_address("127.0.0.1", "203.0.113.9", trusted) == "203.0.113.9"
    # A client may write its own header: only what the trusted hops appended counts.
    assert client_address("127.0.0.1", "127.0.0.1, 203.0.113.9, 10.0.0.4", trusted) == "203.0.113.9"
    assert client_address("198.51.100.7", "127.0.0.1", trusted) == "198.51.100.7", "not a proxy: ignored"
    assert client_address("127.0.0.1", "", trusted) == "127.0.0.1"
    # A client that reached the app past the proxy cannot pass itself off as loopback.
    assert client_address("10.0.0.4", "127.0.0.1", trusted) == "10.0.0.4"
    assert client_address("127.0.0.1", "not-an-address", trusted) == UNKNOWN
