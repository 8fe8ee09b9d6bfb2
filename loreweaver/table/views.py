"""The browser table's one page. Everything else it does, it does over the WebSocket
at `/`, as any client of the protocol."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from loreweaver.version import PROTOCOL_VERSION, VERSION


@require_GET
def table_page(request: HttpRequest) -> HttpResponse:
    """The table: join with a key (pasted, or from an invite link's `#key=`), play."""
    response = render(request, "table/index.html", {"protocol": PROTOCOL_VERSION, "server_version": VERSION})
    # The key travels in the fragment, which never reaches a server or a referrer.
    response["Referrer-Policy"] = "no-referrer"
    return response
