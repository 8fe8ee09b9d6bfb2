"""The browser table's one page (with the rule packs' skill names in it). Everything
else it does, it does over the WebSocket at `/`, as any client of the protocol."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from base.version import PROTOCOL_VERSION, VERSION
from keeper.rules.packs import catalog


@require_GET
def table_page(request: HttpRequest) -> HttpResponse:
    """The table: join with a key (pasted, or from an invite link's `#key=`), play."""
    context = {
        "protocol": PROTOCOL_VERSION,
        "server_version": VERSION,
        "input_max_chars": settings.TRPG_INPUT_MAX_CHARS,  # what the server takes, no less
        # A dice frame names a skill by id; the page reads it in its own language.
        "skill_labels": catalog().page_labels,
    }
    response = render(request, "table/index.html", context)
    # The key travels in the fragment, which never reaches a server or a referrer.
    response["Referrer-Policy"] = "no-referrer"
    return response


# A pack's web page runs here, in a sandboxed frame of the table (an origin of its own:
# it reaches neither the table's page nor its connection). Its inline scripts are its
# own business, so this page alone allows them; it may load nothing from anywhere.
PANEL_FRAME_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'unsafe-inline'",
        "style-src 'unsafe-inline'",
        "img-src data: blob:",
        "media-src data: blob:",
        "font-src data:",
        "frame-ancestors 'self'",
    ]
)


@require_GET
@xframe_options_sameorigin
def panel_frame(request: HttpRequest) -> HttpResponse:
    """The frame a web-page panel is shown in: it waits for the table to post the
    panel's page, then shows it (under its own policy, not the table's)."""
    response = render(request, "table/panel_frame.html")
    response["Content-Security-Policy"] = PANEL_FRAME_POLICY
    response["Referrer-Policy"] = "no-referrer"
    return response
