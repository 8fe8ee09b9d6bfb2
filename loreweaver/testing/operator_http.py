"""The operator console of a running server, driven over HTTP as an operator's browser
would: a staff login (session cookie, CSRF token), pages fetched, forms posted."""

from __future__ import annotations

import http.cookiejar
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request

from loreweaver.testing.servers import ServerProcess


class OperatorSession:
    """A logged-in superuser of `server`'s console (created on first use)."""

    def __init__(self, server: ServerProcess) -> None:
        self.base = server.ws_url.replace("ws://", "http://").rstrip("/")
        password = secrets.token_urlsafe(16)
        username = f"op{secrets.token_hex(3)}"
        result = server.env.manage(
            "createsuperuser",
            "--noinput",
            "--username",
            username,
            "--email",
            f"{username}@example.com",
            DJANGO_SUPERUSER_PASSWORD=password,
        )
        if result.returncode != 0:
            raise RuntimeError(result.stderr)
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        page = self.get("/admin/login/")
        self.post("/admin/login/", {"username": username, "password": password, "next": "/admin/"}, page)

    def get(self, path: str) -> str:
        """The page at `path` (following redirects)."""
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, data: dict[str, str], page: str | None = None) -> str:
        """Post a form to `path` with the CSRF token of `page` (fetched when not given)."""
        page = page if page is not None else self.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "the page has no form"
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token.group(1)}).encode()
        request = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + path})
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode()
