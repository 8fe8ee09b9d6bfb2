"""The operator console of a running server, driven over HTTP as an operator's browser
would: a staff login (session cookie, CSRF token), pages fetched, forms posted."""

from __future__ import annotations

import functools
import http.cookiejar
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

from loreweaver.testing.servers import ServerEnv, ServerProcess, add_staff_user


def create_superuser(env: ServerEnv) -> tuple[str, str]:
    """A new staff login in `env`'s database, the row `manage.py createsuperuser` writes
    (written from here: the command costs a second of CPU, and the console tests make
    dozens of logins; the first-login test runs the command itself): its user name
    and password."""
    username = f"op{secrets.token_hex(3)}"
    password, hashed = _staff_password()
    add_staff_user(env, username, f"{username}@example.com", hashed)
    return username, password


@functools.cache
def password_hash(password: str) -> str:
    """`password`'s hash, made once per test process: a password hash is made to be
    slow (about a quarter of a second of CPU)."""
    from django.contrib.auth.hashers import make_password

    return make_password(password)


@functools.cache
def _staff_password() -> tuple[str, str]:
    """One password for the test process's logins, and its hash."""
    password = secrets.token_urlsafe(16)
    return password, password_hash(password)


class OperatorSession:
    """A logged-in superuser of `server`'s console (created on first use)."""

    def __init__(self, server: ServerProcess) -> None:
        self.base = server.ws_url.replace("ws://", "http://").rstrip("/")
        username, password = create_superuser(server.env)
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

    def form_values(self, path: str) -> tuple[str, dict[str, str]]:
        """The page at `path` and the values its form would post as it stands (text
        inputs, text areas, checked boxes, selected options)."""
        page = self.get(path)
        reader = _FormReader()
        reader.feed(page)
        return page, reader.values


class _FormReader(HTMLParser):
    """Collects what a browser would submit from a Django admin change form."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.values: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        name = found.get("name", "")
        if tag == "input" and name and name != "csrfmiddlewaretoken":
            kind = found.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in found:
                    self.values[name] = found.get("value", "on")
            elif kind not in ("submit", "button", "file"):
                self.values[name] = found.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.values[name] = ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in found:
            self.values[self._select] = found.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self.values[self._textarea] += data
