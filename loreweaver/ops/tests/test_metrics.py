"""`/metrics` (docs/operations.md, "Monitoring"): the Prometheus text of each process,
for the addresses the operator lists (`TRPG_METRICS_ALLOWED`, none by default: not even
loopback) or the bearer token, which the whole `/readyz` answers too; its counters move
when the table plays."""

from __future__ import annotations

import json

from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import as_scraper, gauge, http_get, scrape
from loreweaver.testing.servers import dedicated_server

metered_server = dedicated_server()
listed_server = dedicated_server(TRPG_METRICS_ALLOWED="127.0.0.0/8, ::1")


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


def _get(server, path: str, **headers: str) -> tuple[int, bytes]:
    return http_get(server.ws_url.replace("ws://", "http://").rstrip("/") + path, headers)


def test_loopback_is_a_stranger_unless_the_operator_lists_it(server):
    # The default server: no address listed (on a shared host, loopback is every local user).
    status, body = _get(server, "/metrics")
    assert status == 403 and b"TRPG_METRICS_ALLOWED" in body and b"loreweaver_" not in body
    assert _get(server, "/metrics", Authorization="Bearer not-the-token")[0] == 403
    status, body = _get(server, "/readyz")
    assert status == 200 and set(json.loads(body)) == {"status", "down", "warnings"}, "no check's words"
    base = server.ws_url.replace("ws://", "http://").rstrip("/")
    status, body = as_scraper(base + "/metrics")
    assert status == 200 and b"loreweaver_connections" in body, "the bearer token keeps working"
    status, body = as_scraper(base + "/readyz")
    assert status == 200 and json.loads(body)["checks"]["database"] == "ok"


def test_a_listed_address_reads_the_metrics_and_the_whole_readyz(listed_server):
    status, body = _get(listed_server, "/metrics")
    assert status == 200 and b"loreweaver_connections" in body
    status, body = _get(listed_server, "/readyz")
    assert status == 200 and json.loads(body)["checks"]["database"] == "ok"
