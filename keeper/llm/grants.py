"""A keeper's own subscription (ChatGPT, SuperGrok): the sign-in it leaves behind.

A grant is what a device-code sign-in (`keeper.llm.device_login`, `.model login`)
gives: an access token, the refresh token that renews it, when it expires and, for
ChatGPT, the account it belongs to. It is kept in the credential book
(`ProviderCredential`) under the canonical provider name (`chatgpt`, `supergrok`), for
the room whose keeper signed in and no other, sealed with a key derived from the
server's secret: the database, a backup or an export holds only ciphertext. Tokens
are read back only into the request that needs them, never into a reply, a frame or
a log line.

A token is renewed a minute before it expires; a renewal the provider refuses
forgets the grant (the room reads `logged_out`), and the caller is told with
`SignedOut`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from dataclasses import asdict, dataclass

from django.conf import settings

from keeper.llm.providers import CATALOG, SUBSCRIPTIONS
from keeper.models import ModelSetting, ProviderCredential

log = logging.getLogger(__name__)

# Seconds before its expiry that a token is renewed.
REFRESH_AHEAD = 60.0
# Seconds one sign-in or renewal request may take.
HTTP_TIMEOUT = 20.0


class SignedOut(Exception):
    """The room has no usable grant (never signed in, signed out, or a renewal the
    provider refused). The text names the provider only, never a token."""


@dataclass(frozen=True)
class Grant:
    """One subscription sign-in. Never shown: `repr` names no token."""

    access_token: str
    refresh_token: str
    expires_at: float
    account_id: str = ""

    def __repr__(self) -> str:
        return f"Grant(expires_at={self.expires_at:.0f})"

    def due(self, now: float | None = None) -> bool:
        """Whether the access token must be renewed before it is sent."""
        return (now if now is not None else time.time()) >= self.expires_at - REFRESH_AHEAD


def canonical(provider: str) -> str:
    """The name a subscription provider's grant is kept under ("" for others)."""
    return SUBSCRIPTIONS.get(provider, "")


def api_url(provider: str) -> str:
    """Where a subscription's models are reached (the operator's setting)."""
    name = canonical(provider)
    return settings.TRPG_LLM_CHATGPT_API_URL if name == "chatgpt" else settings.TRPG_LLM_XAI_API_URL


def auth_url(provider: str) -> str:
    """Where a subscription signs in (the operator's setting)."""
    name = canonical(provider)
    return settings.TRPG_LLM_CHATGPT_AUTH_URL if name == "chatgpt" else settings.TRPG_LLM_XAI_AUTH_URL


def client_id(provider: str) -> str:
    """The provider's public client id for device sign-in."""
    name = canonical(provider)
    return settings.TRPG_LLM_CHATGPT_CLIENT_ID if name == "chatgpt" else settings.TRPG_LLM_XAI_CLIENT_ID


def _same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and a.rstrip("/").lower() == b.rstrip("/").lower()


def subscription_of(provider: str, base_url: str) -> str:
    """The subscription `provider` at `base_url` signs in to, or "" for the API-key
    path: `supergrok` always signs in; `chatgpt` does unless it was given an endpoint
    of its own (then it is a plain OpenAI-compatible provider with a key)."""
    name = canonical(provider)
    if name == "supergrok":
        return name
    if name == "chatgpt" and (
        not base_url or _same(base_url, CATALOG[provider].base_url) or _same(base_url, api_url(name))
    ):
        return name
    return ""


def official_api(url: str) -> bool:
    """Whether `url` is where a subscription's models are reached (the operator's
    setting, so not held to the rooms' endpoint policy)."""
    return _same(url, settings.TRPG_LLM_CHATGPT_API_URL) or _same(url, settings.TRPG_LLM_XAI_API_URL)


def allowed() -> bool:
    """Whether the operator lets room keepers use their own subscriptions: the
    console's word when it said one, else `TRPG_LLM__SUBSCRIPTIONS`."""
    row = ModelSetting.objects.filter(room__isnull=True).order_by("pk").first()
    if row is not None and row.subscriptions is not None:
        return row.subscriptions
    return settings.TRPG_LLM_SUBSCRIPTIONS


def _fernet():
    from cryptography.fernet import Fernet

    digest = hashlib.sha256(b"loreweaver subscription grants\0" + settings.SECRET_KEY.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def seal(grant: Grant) -> str:
    """The grant as ciphertext for the credential book."""
    return _fernet().encrypt(json.dumps(asdict(grant)).encode()).decode()


def unseal(sealed: str) -> Grant | None:
    """The grant back from the book; None when it cannot be read (a changed secret)."""
    from cryptography.fernet import InvalidToken

    try:
        data = json.loads(_fernet().decrypt(sealed.encode()))
        return Grant(
            str(data["access_token"]),
            str(data["refresh_token"]),
            float(data["expires_at"]),
            str(data.get("account_id", "")),
        )
    except (InvalidToken, ValueError, KeyError, TypeError):
        return None


def _rows(room_id: int, provider: str):
    return ProviderCredential.objects.filter(room_id=room_id, provider=canonical(provider)).exclude(grant="")


def load(room_id: int, provider: str) -> Grant | None:
    """The room's own grant for `provider` (never another room's, nor the operator's)."""
    row = _rows(room_id, provider).order_by("-updated_at").first()
    return unseal(row.grant) if row is not None else None


def signed_in(room_id: int | None, provider: str) -> bool:
    """Whether the room holds a grant for `provider`."""
    return room_id is not None and load(room_id, provider) is not None


def store(room_id: int, provider: str, grant: Grant) -> None:
    """Keep `grant` for the room (replacing the one it had)."""
    name = canonical(provider)
    ProviderCredential.objects.filter(room_id=room_id, provider=name, base_url=api_url(name)).delete()
    _rows(room_id, name).delete()
    ProviderCredential.objects.create(
        room_id=room_id, provider=name, base_url=api_url(name), api_key="", grant=seal(grant)
    )


def forget(room_id: int, provider: str) -> bool:
    """Forget the room's grant for `provider`; whether there was one."""
    deleted, _kinds = _rows(room_id, provider).delete()
    return bool(deleted)


def grant_from_tokens(answer: dict, previous: Grant | None = None) -> Grant:
    """A grant from a token endpoint's answer (a renewal may omit the refresh token
    and the account: the previous ones stay). Raises ValueError without tokens."""
    access = str(answer.get("access_token") or "")
    refresh = str(answer.get("refresh_token") or (previous.refresh_token if previous else ""))
    if not access or not refresh:
        raise ValueError("no tokens")
    expires_at = _jwt_expiry(access)
    if expires_at is None:
        try:
            expires_at = time.time() + float(answer.get("expires_in") or 3600)
        except (TypeError, ValueError):
            expires_at = time.time() + 3600
    account = _account_of(str(answer.get("id_token") or ""), access) or (
        previous.account_id if previous else ""
    )
    return Grant(access, refresh, expires_at, account)


def _claims(token: str) -> dict:
    parts = token.split(".")
    if len(parts) != 3:
        return {}
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return {}
    return claims if isinstance(claims, dict) else {}


def _jwt_expiry(token: str) -> float | None:
    expiry = _claims(token).get("exp")
    return float(expiry) if isinstance(expiry, int | float) else None


def _account_of(*tokens: str) -> str:
    """The ChatGPT account a token names (its `https://api.openai.com/auth` claim)."""
    for token in tokens:
        auth = _claims(token).get("https://api.openai.com/auth")
        if isinstance(auth, dict) and auth.get("chatgpt_account_id"):
            return str(auth["chatgpt_account_id"])
    return ""


def token_endpoint(provider: str) -> str:
    """Where tokens are exchanged and renewed."""
    base = auth_url(provider).rstrip("/")
    return f"{base}/oauth/token" if canonical(provider) == "chatgpt" else f"{base}/oauth2/token"


def renew(provider: str, grant: Grant) -> Grant:
    """A fresh access token for `grant` (blocking). Raises SignedOut when the
    provider refuses or cannot be reached."""
    form = {
        "grant_type": "refresh_token",
        "client_id": client_id(provider),
        "refresh_token": grant.refresh_token,
    }
    if canonical(provider) == "chatgpt":
        form["scope"] = "openid profile email"
    from keeper.llm import guarded_http  # httpx is loaded with the first request

    try:
        with guarded_http.http_client(operator=True, timeout=HTTP_TIMEOUT) as http:
            answer = http.post(token_endpoint(provider), data=form, headers={"Accept": "application/json"})
        if answer.status_code != 200:
            raise SignedOut(f"{canonical(provider)}: renewal answered {answer.status_code}")
        return grant_from_tokens(answer.json(), grant)
    except SignedOut:
        raise
    except Exception as failed:
        raise SignedOut(f"{canonical(provider)}: renewal failed ({failed.__class__.__name__})") from None


def fresh(room_id: int, provider: str, *, force: bool = False) -> Grant:
    """The room's grant with an access token good for a minute at least (renewed and
    kept when due, or when `force`: the provider refused the one it had). Blocking.
    Raises SignedOut when there is none or the renewal failed; a failed renewal
    forgets the grant."""
    grant = load(room_id, provider)
    if grant is None:
        raise SignedOut(canonical(provider))
    if not force and not grant.due():
        return grant
    try:
        renewed = renew(provider, grant)
    except SignedOut as failed:
        log.warning("room=%s the %s sign-in could not be renewed: %s", room_id, canonical(provider), failed)
        forget(room_id, provider)
        raise
    store(room_id, provider, renewed)
    return renewed
