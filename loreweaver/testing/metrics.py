"""A running server's `/metrics`, read the way an operator's scraper reads it (the
tests run on loopback, which may read them without a token)."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from typing import Any


def scrape(server: Any) -> str:
    """The server's `/metrics` text (the test runs on loopback)."""
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + "/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        return response.read().decode()


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
