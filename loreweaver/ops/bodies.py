"""Request bodies larger than Django reads (`DATA_UPLOAD_MAX_MEMORY_SIZE`, 2.5 MiB) are
answered 413 before Django sees them.

Django itself refuses such a body only where a view or its middleware reads it, and then
as a 400 with an ERROR and a traceback in the log (`RequestDataTooBig`): a stranger's
3 MB POST read as a fault of the server. Here a body announced larger
(`Content-Length`) is refused at once, and one without a length (chunked) as soon as
it has grown past the limit: a short answer (JSON under `/api/`, whose callers read
JSON), one WARNING line without a traceback. The limit counts every byte of the body,
files included: the site takes no file over HTTP (media travels on the carriers' media
channel).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.conf import settings

log = logging.getLogger(__name__)


def _declared_length(scope: dict) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length" and value.strip().isdigit():
            return int(value)
    return None


async def _refuse(scope: dict, send: Callable, limit: int) -> None:
    client = (scope.get("client") or ("?", 0))[0]
    log.warning(
        "refused a request body over %s bytes: %s %s from %s", limit, scope["method"], scope["path"], client
    )
    told = f"the request body is larger than this server accepts ({limit} bytes)"
    if scope["path"].startswith("/api/"):
        payload, kind = json.dumps({"detail": told}).encode(), b"application/json"
    else:
        payload, kind = (told + "\n").encode(), b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def bounded_bodies(django_http: Callable) -> Callable:
    """An ASGI app that answers 413 for a body over `DATA_UPLOAD_MAX_MEMORY_SIZE` and
    hands every other request to `django_http`."""

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if scope["type"] != "http" or limit is None:
            await django_http(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _refuse(scope, send, limit)
            return
        received, refused = 0, False

        async def counted() -> dict:
            # Django reads the whole body before it starts on the request: past the
            # limit, it is told the client left, and returns without an answer.
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _refuse(scope, send, limit)
                    return {"type": "http.disconnect"}
            return message

        await django_http(scope, counted, send)

    return app
