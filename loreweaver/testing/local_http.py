"""What the local stand-ins for providers this machine cannot reach share (the model
APIs in `fake_llm.py` and `fake_responses.py`, the sign-in server in `fake_auth.py`):
a real HTTP server on loopback, run on a thread of its own, whose handlers answer JSON
or write server-sent events one chunk at a time."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-request (a server process killed on purpose) is
    not the provider's error: no traceback for a reset connection."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class JsonHandler(BaseHTTPRequestHandler):
    """A keep-alive handler that answers JSON, or streams chunks of a server-sent
    event stream (each its own small write, so Nagle is off)."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args: object) -> None:
        pass

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_events(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class LocalServer:
    """A stand-in's lifetime: `serve` starts its handler on a free loopback port,
    `stop` closes it; `port` is where it listens."""

    server: QuietServer | None = None

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
