"""`/metrics`: this process's numbers (`loreweaver/metrics.py`) in the Prometheus text
format, for a scraper on the same host (loopback) or one that presents the bearer token
`TRPG_METRICS_TOKEN`. Each process of a hosted table serves its own."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from loreweaver import metrics
from loreweaver.wire import hub


def _allowed(request: HttpRequest) -> bool:
    token = settings.TRPG_METRICS_TOKEN
    offered = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(offered.encode(), f"Bearer {token}".encode()):
        return True
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """The metrics (403 for a scraper neither on loopback nor with the token)."""
    if not _allowed(request):
        return HttpResponse("metrics are for loopback or a bearer token (TRPG_METRICS_TOKEN)\n", status=403)
    metrics.ACTIVE_ROOMS.set(len(hub.local_hub.rooms()))
    return HttpResponse(generate_latest(), content_type=CONTENT_TYPE_LATEST)
