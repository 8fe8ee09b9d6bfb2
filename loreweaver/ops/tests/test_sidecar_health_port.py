"""The Iroh sidecar serves no HTTP of its own, so it answers `/healthz`, `/readyz` and
`/metrics` on a small port (`TRPG_IROH__HEALTH_BIND`) for compose's healthcheck and a
scraper; and like `serve` it sends its members away to reconnect when it is stopped
(docs/operations.md, "Deploying")."""

from __future__ import annotations

import asyncio
import json

from loreweaver.testing.clients import IrohClient
from loreweaver.testing.metrics import as_scraper, http_get
from loreweaver.testing.servers import start_iroh_sidecar


def _get(url: str) -> tuple[int, bytes]:
    """`url` as the operator's scraper reads it (with the metrics token)."""
    return as_scraper(url)


def _get_as_a_local_user(url: str) -> tuple[int, bytes]:
    """`url` from loopback without the token: any user of the host."""
    return http_get(url)


async def test_the_sidecar_answers_health_and_metrics_and_stops_gracefully(hosted_env, room):
    sidecar = start_iroh_sidecar(hosted_env, TRPG_IROH__HEALTH_BIND="127.0.0.1:0")
    base = sidecar.banner_value("Health: ").split()[0].rstrip("/")
    member = await IrohClient.connect(sidecar.ticket)
    try:
        await member.join(hosted_env.mint(room, "Ann"))
        assert _get(f"{base}/healthz") == (200, b'{"status": "ok"}')
        status, body = _get(f"{base}/readyz")
        ready = json.loads(body)
        assert status == 200 and ready["status"] == "ready"
        assert ready["checks"]["database"] == ready["checks"]["redis"] == "ok"
        status, text = _get(f"{base}/metrics")
        assert status == 200 and b'loreweaver_joined_members{carrier="iroh"} 1.0' in text
        # Loopback is not listed in TRPG_METRICS_ALLOWED: a local user is a stranger.
        assert _get_as_a_local_user(f"{base}/metrics")[0] == 403
        status, body = _get_as_a_local_user(f"{base}/readyz")
        assert status == 200 and set(json.loads(body)) == {"status", "down", "warnings"}

        sidecar.terminate()
        goodbye = (await member.wait_closed())[-1]
        assert goodbye["type"] == "system" and "restarting" in goodbye["text"]
        assert await asyncio.to_thread(sidecar.proc.wait, 30) == 0
    finally:
        await member.close()
        sidecar.stop()
