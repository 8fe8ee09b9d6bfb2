"""The headers every page of the site carries, so that a page the server sends can
only run the server's own scripts: a Content-Security-Policy (no inline script; media,
pictures and connections from the site itself and the `blob:` URLs its scripts make)
and a Permissions-Policy that turns off the powerful features no page here uses. A
view that sets its own policy (the media preview, the web-panel frame) keeps it."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # Inline style attributes stay (the admin's widgets use them); they run no code.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        # 'self' covers the page's own WebSocket (ws:// or wss:// on the same host).
        "connect-src 'self' blob:",
        "font-src 'self'",
        "frame-src 'self'",
        "worker-src 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "camera",
        "microphone",
        "geolocation",
        "payment",
        "usb",
        "serial",
        "bluetooth",
        "hid",
        "midi",
        "display-capture",
    )
)


def security_headers(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Django middleware: add the site's policies to a response that has none."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response

    return middleware
