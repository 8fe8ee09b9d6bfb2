"""A real local HTTP server that speaks the subscription providers' sign-in APIs,
scripted per test: ChatGPT's device sign-in (a user code, then an authorization code
exchanged for tokens) and xAI's RFC 8628 device flow, and both token endpoints'
renewals.

The server under test is pointed at it with `TRPG_LLM__CHATGPT_AUTH_URL` and
`TRPG_LLM__XAI_AUTH_URL` (both at `url`). What each poll answers is scripted in
order (`pending`, `slow_down`, `denied`, `expired`, `approve`); with nothing left,
a poll is pending. Every token it issues is random and kept in `issued`, so a test
can look for it where it must never be.
"""

from __future__ import annotations

import base64
import json
import queue
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from loreweaver.testing.local_http import JsonHandler, LocalServer, QuietServer


@dataclass
class FakeAuth(LocalServer):
    """The scripted sign-in server."""

    answers: queue.Queue = field(default_factory=queue.Queue)
    # What a device code says about itself: the pace and lifetime it asks for.
    interval: int = 1
    expires_in: int = 600
    # How long an issued access token lasts (seconds), as `expires_in`.
    token_lifetime: int = 3600
    # Whether a renewal is refused (an expired or revoked refresh token).
    refuse_refresh: bool = False
    # The ChatGPT account the access tokens name.
    account: str = "acct-42"
    issued: list[str] = field(default_factory=list)
    # (path, time) of every request, and the bodies.
    calls: list[tuple[str, float]] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    server: QuietServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.port}"

    def script(self, *answers: str) -> None:
        """Queue what the next polls answer."""
        for answer in answers:
            self.answers.put(answer)

    def polls(self) -> list[float]:
        """When each poll arrived."""
        return [
            at for path, at in self.calls if path in ("/api/accounts/deviceauth/token", "/oauth2/token/poll")
        ]

    def count(self, path: str) -> int:
        return sum(1 for called, _at in self.calls if called == path)

    def _token(self, prefix: str) -> str:
        token = f"{prefix}-{secrets.token_hex(16)}"
        with self._lock:
            self.issued.append(token)
        return token

    def _access_token(self) -> str:
        """A JWT-shaped access token, as ChatGPT's are: it names when it expires and the
        account (`account`), and is random like any other."""
        claims = {
            "exp": int(time.time()) + self.token_lifetime,
            "https://api.openai.com/auth": {"chatgpt_account_id": self.account},
        }
        header = base64.urlsafe_b64encode(b'{"alg":"none"}').decode().rstrip("=")
        body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        token = f"{header}.{body}.{secrets.token_hex(16)}"
        with self._lock:
            self.issued.append(token)
        return token

    def _tokens(self) -> dict:
        return {
            "access_token": self._access_token(),
            "refresh_token": self._token("rt"),
            "id_token": "",
            "token_type": "Bearer",
            "expires_in": self.token_lifetime,
        }

    def start(self) -> FakeAuth:
        fake = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                raw = self._body().decode()
                if (self.headers.get("Content-Type") or "").startswith("application/json"):
                    body = json.loads(raw or "{}")
                else:
                    body = {key: values[0] for key, values in parse_qs(raw).items()}
                fake.bodies.append({"path": self.path, **body})
                grant = body.get("grant_type", "")
                key = (
                    "/oauth2/token/poll"
                    if self.path == "/oauth2/token" and grant.endswith("device_code")
                    else self.path
                )
                fake.calls.append((key, time.monotonic()))
                if self.path == "/api/accounts/deviceauth/usercode":
                    self._json(
                        200,
                        {
                            "device_auth_id": "dev-" + secrets.token_hex(4),
                            "user_code": "CHAT-" + secrets.token_hex(2).upper(),
                            "interval": str(fake.interval),
                            "expires_in": fake.expires_in,
                        },
                    )
                elif self.path == "/oauth2/device/code":
                    self._json(
                        200,
                        {
                            "device_code": "dc-" + secrets.token_hex(4),
                            "user_code": "GROK-" + secrets.token_hex(2).upper(),
                            "verification_uri": f"{fake.url}/device",
                            "interval": fake.interval,
                            "expires_in": fake.expires_in,
                        },
                    )
                elif key in ("/api/accounts/deviceauth/token", "/oauth2/token/poll"):
                    self._poll(chatgpt=key.startswith("/api/"))
                elif grant == "refresh_token":
                    if fake.refuse_refresh:
                        self._json(400, {"error": "invalid_grant"})
                    else:
                        self._json(200, fake._tokens())
                elif grant == "authorization_code" and self.path == "/oauth/token":
                    self._json(200, fake._tokens())
                else:
                    self._json(404, {"error": "not_found"})

            def _poll(self, *, chatgpt: bool) -> None:
                try:
                    answer = fake.answers.get_nowait()
                except queue.Empty:
                    answer = "pending"
                if answer == "approve":
                    if chatgpt:
                        self._json(200, {"authorization_code": "ac-1", "code_verifier": "cv-1"})
                    else:
                        self._json(200, fake._tokens())
                elif answer == "pending" and chatgpt:
                    self._json(403, {"error": {"message": "pending"}})
                else:
                    error = {
                        "pending": "authorization_pending",
                        "slow_down": "slow_down",
                        "denied": "access_denied",
                        "expired": "expired_token",
                    }[answer]
                    self._json(400, {"error": error})

        self.serve(Handler)
        return self
