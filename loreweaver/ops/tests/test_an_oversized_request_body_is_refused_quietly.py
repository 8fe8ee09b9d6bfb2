"""A request body larger than the server reads (2.5 MiB) is answered 413 over real HTTP,
with a short message (JSON under `/api/`), whether its length is announced or it
arrives chunked, and leaves one WARNING line in the log, never an ERROR or a traceback
(docs/operations.md, "Hostile input"). A body under the limit is served as before."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from loreweaver.testing.servers import dedicated_server

THREE_MB = 3 * 1024 * 1024
LIMIT = 2621440  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE, which the server keeps

body_server = dedicated_server()


def _post(server, path: str, body: bytes, content_type: str, *, chunked: bool = False):
    """POST `body` to `path` (chunked: in 64 KiB pieces, with no length announced); the
    status, the content type and the body of the answer."""
    where = urlsplit(server.ws_url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        if chunked:
            pieces = (body[at : at + 65536] for at in range(0, len(body), 65536))
            connection.request(
                "POST", path, body=pieces, headers={"Content-Type": content_type}, encode_chunked=True
            )
        else:
            connection.request("POST", path, body=body, headers={"Content-Type": content_type})
        answer = connection.getresponse()
        return answer.status, answer.getheader("Content-Type"), answer.read()
    finally:
        connection.close()


def test_a_3mb_body_is_answered_413_and_logged_as_one_warning(body_server):
    big_json = json.dumps({"genre_slug": "pulp_noir", "world_slug": "x" * THREE_MB}).encode()
    status, kind, answer = _post(body_server, "/api/games", big_json, "application/json")
    assert (status, kind) == (413, "application/json")
    assert json.loads(answer) == {
        "detail": f"the request body is larger than this server accepts ({LIMIT} bytes)"
    }

    status, kind, answer = _post(body_server, "/api/games", big_json, "application/json", chunked=True)
    assert (status, kind) == (413, "application/json"), "a body with no length, counted as it arrives"

    form = b"username=x&password=" + b"p" * THREE_MB
    status, kind, answer = _post(body_server, "/admin/login/", form, "application/x-www-form-urlencoded")
    assert (status, kind) == (413, "text/plain; charset=utf-8") and b"2621440 bytes" in answer

    small = json.dumps({"genre_slug": "pulp_noir", "world_slug": "nowhere", "mode": "solo"}).encode()
    status, kind, answer = _post(body_server, "/api/games", small, "application/json")
    assert status == 404 and json.loads(answer)["detail"] == "no world nowhere in pulp_noir"

    body_server.wait_for_log("refused a request body over 2621440 bytes: POST /admin/login/ from 127.0.0.1")
    log = body_server.log_text()
    assert log.count(" WARNING loreweaver.ops.bodies refused a request body over 2621440 bytes") == 3, log
    assert " ERROR " not in log and "Traceback" not in log and "RequestDataTooBig" not in log, log
