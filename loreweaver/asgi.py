"""ASGI entry point: Django for HTTP (the browser table, admin, static), the table's
WebSocket at `/`, and the SideQuest contract's at `/ws`."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "loreweaver.settings")
django_http = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from loreweaver.wire.consumers import TableConsumer  # noqa: E402
from loreweaver.wire.sidequest import SideQuestConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_http,
        "websocket": URLRouter([path("", TableConsumer.as_asgi()), path("ws", SideQuestConsumer.as_asgi())]),
    }
)
