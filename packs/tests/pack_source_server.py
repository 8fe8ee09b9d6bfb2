"""A real local HTTP server standing in for GitHub's releases API and a pack's download
host (which tests cannot reach): `/repos/<owner>/<repo>/releases/latest` and
`/releases/tags/<tag>` answer as GitHub does, naming `/download/<file>` as the
release's asset; `/moved/<file>` redirects there. A file whose name starts with
`unsized` is sent without a Content-Length (its end is the connection's)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class PackSource:
    """The running server: its base URL, the files it serves, the paths it was asked."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.asked: list[str] = []
        source = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                source.asked.append(self.path)
                parts = self.path.strip("/").split("/")
                if parts[:1] == ["repos"] and parts[3:4] == ["releases"]:
                    tag = parts[5] if parts[4:5] == ["tags"] else "latest"
                    named = [name for name in source.files if name.endswith(".lwpack")]
                    release = {
                        "tag_name": tag,
                        "assets": [
                            {"name": "notes.txt", "browser_download_url": f"{source.url}/download/notes"}
                        ]
                        + [
                            {"name": name, "browser_download_url": f"{source.url}/download/{name}"}
                            for name in named
                        ],
                    }
                    self._answer(200, json.dumps(release).encode(), "application/json")
                elif parts[:1] == ["moved"] and len(parts) == 2:
                    self.send_response(302)
                    self.send_header("Location", f"/download/{parts[1]}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif parts[:1] == ["download"] and len(parts) == 2 and parts[1] in source.files:
                    self._answer(200, source.files[parts[1]], "application/octet-stream")
                else:
                    self._answer(404, b"not found", "text/plain")

            def _answer(self, status: int, body: bytes, mime: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", mime)
                if not self.path.split("/")[-1].startswith("unsized"):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@contextmanager
def pack_source(files: dict[str, bytes]) -> Iterator[PackSource]:
    """A `PackSource` serving `files` for the time of the block."""
    source = PackSource(files)
    thread = threading.Thread(target=source.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield source
    finally:
        source.server.shutdown()
        source.server.server_close()
        thread.join(5)
