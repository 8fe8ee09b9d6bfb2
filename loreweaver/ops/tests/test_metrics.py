"""`/metrics` (docs/operations.md, "Monitoring"): the Prometheus text of each process,
for loopback or a bearer token; its counters move when the table plays."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from loreweaver.ops.metrics import metrics_view
from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import gauge, scrape
from loreweaver.testing.servers import dedicated_server

metered_server = dedicated_server()


async def test_the_counters_move_when_the_table_plays(metered_server, room):
    before = scrape(metered_server)
    async with await WsClient.connect(metered_server.ws_url) as pip:
        await pip.join(metered_server.env.mint(room, "Pip"))
        await pip.say(".r 1d6")
        await pip.expect("dice")
        await pip.expect("state")
        during = scrape(metered_server)
        assert gauge(during, "loreweaver_connections", carrier="ws") >= 1
        assert gauge(during, "loreweaver_joined_members", carrier="ws") >= 1
        assert gauge(during, "loreweaver_active_rooms") >= 1
    assert gauge(during, "loreweaver_frames_in_total", type="input") > gauge(
        before, "loreweaver_frames_in_total", type="input"
    )
    assert gauge(during, "loreweaver_frames_out_total", type="dice") > gauge(
        before, "loreweaver_frames_out_total", type="dice"
    )
    assert gauge(during, "loreweaver_turn_seconds_count", kind="command") > gauge(
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
