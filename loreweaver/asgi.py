"""ASGI entry point: Django for HTTP (the browser table, admin, static) but the health
probes, which are answered before it, and bodies too large for it, refused before it;
the table's WebSocket at `/`, and the SideQuest contract's at `/ws`; behind a trusted
proxy, the client's own address throughout."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "loreweaver.settings")
django.setup(set_prefix=False)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from loreweaver.ops.bodies import bounded_bodies  # noqa: E402
from loreweaver.ops.forwarded import forwarded_for  # noqa: E402
from loreweaver.ops.health import health_first  # noqa: E402
from loreweaver.ops.http_threads import ThreadedASGIHandler, request_threads  # noqa: E402
from loreweaver.wire.consumers import TableConsumer  # noqa: E402
from loreweaver.wire.sidequest import SideQuestConsumer  # noqa: E402

# Django's requests on a few long-lived threads, not one new thread each.
django_http = ThreadedASGIHandler(request_threads())

application = forwarded_for(
    ProtocolTypeRouter(
        {
            "http": health_first(bounded_bodies(django_http)),
            "websocket": URLRouter(
                [path("", TableConsumer.as_asgi()), path("ws", SideQuestConsumer.as_asgi())]
            ),
        }
    )
)
