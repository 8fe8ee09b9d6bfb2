"""A running server's `/metrics` (and the whole `/readyz`), read the way an operator's
scraper reads them: with the bearer token every test server is started with (loopback
is not trusted, docs/operations.md, "Monitoring")."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from typing import Any

from loreweaver.testing.servers import TEST_METRICS_TOKEN


def http_get(url: str, headers: dict[str, str] | None = None, timeout: float = 10) -> tuple[int, bytes]:
    """GET `url` with `headers`: the status and the body (an error status is an answer too)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read()


def as_scraper(url: str, token: str = TEST_METRICS_TOKEN, timeout: float = 10) -> tuple[int, bytes]:
    """GET `url` presenting `token` as the bearer token: the status and the body."""
    return http_get(url, {"Authorization": f"Bearer {token}"}, timeout)


def scrape(server: Any) -> str:
    """The server's `/metrics` text."""
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + "/metrics"
    status, body = as_scraper(url)
    assert status == 200, body
    return body.decode()


def gauge(text: str, name: str, **labels: str) -> float:
    """One sample of the Prometheus text (0 when the series does not exist yet)."""
    shown = ",".join(f'{key}="{value}"' for key, value in labels.items())
    series = f"{name}{{{shown}}}" if labels else name
    found = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def connections_settle(server: Any, carrier: str, expected: float, timeout: float = 20.0) -> float:
    """Wait until the server's open connections of `carrier` are `expected` (a
    connection's teardown runs when the server sees the socket close, a moment after
    the client does); the last value read."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = gauge(await asyncio.to_thread(scrape, server), "loreweaver_connections", carrier=carrier)
        if value == expected or asyncio.get_running_loop().time() > deadline:
            return value
        await asyncio.sleep(0.1)  # a poll of the metric, bounded by the deadline
