"""The Iroh sidecar's own small HTTP port (it serves no HTTP otherwise): `/healthz`,
`/readyz` and `/metrics`, answered as the web process answers them, for compose's
healthcheck and a Prometheus scraper (`TRPG_IROH__HEALTH_BIND`)."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.db import connections
from prometheus_client import CONTENT_TYPE_LATEST

from loreweaver.ops import health
from loreweaver.ops import metrics as metrics_page

log = logging.getLogger(__name__)


class _Answers(BaseHTTPRequestHandler):
    server_version = "loreweaver-sidecar"
    timeout = 10  # seconds a client may take to send its request: a silent one holds no thread

    def log_message(self, format: str, *args: object) -> None:
        log.debug("health port: " + format, *args)

    def do_GET(self) -> None:
        try:
            self._answer(self.path.split("?", 1)[0])
        finally:
            # Each request has a thread of its own, which ends now: a connection it
            # opened (`/metrics` reads the last backup) would outlive it.
            connections.close_all()

    def _answer(self, path: str) -> None:
        if path == "/healthz":
            self._json(200, {"status": "ok"})
        elif path == "/readyz":
            trusted = metrics_page.allowed(self.client_address[0], self.headers.get("Authorization", ""))
            self._json(*health.readiness_for(trusted=trusted))
        elif path == "/metrics":
            if metrics_page.allowed(self.client_address[0], self.headers.get("Authorization", "")):
                self._send(200, metrics_page.exposition(), CONTENT_TYPE_LATEST)
            else:
                self._send(403, metrics_page.REFUSED.encode(), "text/plain; charset=utf-8")
        else:
            self._json(404, {"error": "not found: /healthz, /readyz and /metrics are served here"})

    def _json(self, status: int, body: dict) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def serve_health(bind: str) -> ThreadingHTTPServer:
    """Answer health and metrics on `bind` ("host:port", port 0 = any free one) from a
    thread of its own; returns the server (its `server_address` has the port)."""
    host, _, port = bind.rpartition(":")
    server = ThreadingHTTPServer((host.strip("[]") or "0.0.0.0", int(port)), _Answers)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="health-port", daemon=True).start()
    return server
