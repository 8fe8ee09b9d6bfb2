"""`/metrics`: this process's numbers (`base/metrics.py`) in the Prometheus text
format, for a scraper at an address the operator lists (`TRPG_METRICS_ALLOWED`) or one
that presents the bearer token `TRPG_METRICS_TOKEN`. Each process of a hosted table
serves its own.

Loopback is not trusted by itself: on a shared host every local user is on loopback.
Behind a trusted proxy the address is the client's own (`loreweaver/ops/forwarded.py`
rewrites it before a view sees it)."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from base import metrics
from loreweaver.ops.forwarded import is_among, networks
from loreweaver.wire import hub
from rooms.models import BackupRun


def allowed(remote_address: str, authorization: str) -> bool:
    """Whether a caller may read the metrics (and the whole `/readyz`): it presents the
    bearer token, or its address is one the operator listed in `TRPG_METRICS_ALLOWED`."""
    token = settings.TRPG_METRICS_TOKEN
    if token and hmac.compare_digest(authorization.encode(), f"Bearer {token}".encode()):
        return True
    return is_among(remote_address, networks(settings.TRPG_METRICS_ALLOWED))


def exposition() -> bytes:
    """This process's metrics in the Prometheus text format."""
    metrics.ACTIVE_ROOMS.set(hub.local_hub.room_count())
    last = BackupRun.objects.first()
    if last is not None:
        metrics.BACKUP_LAST_RUN.set(last.finished_at.timestamp())
        metrics.BACKUP_LAST_FAILED.set(0 if last.ok else 1)
        metrics.BACKUP_LAST_ROOMS.set(last.rooms)
    return generate_latest()


REFUSED = "metrics are for the addresses of TRPG_METRICS_ALLOWED or the bearer token TRPG_METRICS_TOKEN\n"


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """The metrics (403 for a scraper neither at a listed address nor with the token)."""
    if not allowed(request.META.get("REMOTE_ADDR", ""), request.headers.get("Authorization", "")):
        return HttpResponse(REFUSED, status=403)
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
