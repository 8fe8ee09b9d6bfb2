"""`/metrics` (docs/operations.md, "Monitoring"): the Prometheus text of each process,
for loopback or a bearer token; its counters move when the table plays."""

from __future__ import annotations

import re
import urllib.request

import pytest
from django.test import RequestFactory

from loreweaver.ops.metrics import metrics_view
from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server

metered_server = dedicated_server()


def _scrape(server) -> str:
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + "/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        return response.read().decode()


def _value(text: str, name: str, **labels: str) -> float:
    """A sample's value (0 when the series does not exist yet)."""
    shown = ",".join(f'{key}="{value}"' for key, value in labels.items())
    series = f"{name}{{{shown}}}" if labels else name
    found = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def test_the_counters_move_when_the_table_plays(metered_server, room):
    before = _scrape(metered_server)
    async with await WsClient.connect(metered_server.ws_url) as pip:
        await pip.join(metered_server.env.mint(room, "Pip"))
        await pip.say(".r 1d6")
        await pip.expect("dice")
        await pip.expect("state")
        during = _scrape(metered_server)
        assert _value(during, "loreweaver_connections", carrier="ws") >= 1
        assert _value(during, "loreweaver_joined_members", carrier="ws") >= 1
        assert _value(during, "loreweaver_active_rooms") >= 1
    assert _value(during, "loreweaver_frames_in_total", type="input") > _value(
        before, "loreweaver_frames_in_total", type="input"
    )
    assert _value(during, "loreweaver_frames_out_total", type="dice") > _value(
        before, "loreweaver_frames_out_total", type="dice"
    )
    assert _value(during, "loreweaver_turn_seconds_count", kind="command") > _value(
        before, "loreweaver_turn_seconds_count", kind="command"
    )


@pytest.mark.django_db
def test_metrics_are_for_loopback_or_the_bearer_token(settings):
    settings.TRPG_METRICS_TOKEN = "scrape-token-0123456789"
    remote = RequestFactory().get("/metrics", REMOTE_ADDR="10.1.2.3")
    assert metrics_view(remote).status_code == 403
    wrong = RequestFactory().get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_AUTHORIZATION="Bearer nope")
    assert metrics_view(wrong).status_code == 403
    right = RequestFactory().get(
        "/metrics", REMOTE_ADDR="10.1.2.3", HTTP_AUTHORIZATION="Bearer scrape-token-0123456789"
    )
    assert metrics_view(right).status_code == 200
    assert metrics_view(RequestFactory().get("/metrics", REMOTE_ADDR="127.0.0.1")).status_code == 200
