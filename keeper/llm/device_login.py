"""Signing a room in to a keeper's own subscription: the device-code flow (RFC 8628).

`.model login chatgpt|supergrok` asks the provider for a user code and shows the
keeper where to enter it; the server then asks the provider, in the background, at
the pace it sets (`interval`, five seconds more after each `slow_down`), until the
keeper approved (the grant is kept, `keeper.llm.grants`), refused, the code expired,
or its time ran out. ChatGPT's flow is the one the Codex CLI uses (a user code, then
an authorization code exchanged with PKCE); SuperGrok's is xAI's standard one.

One sign-in per room and provider is under way at a time: asking again while one is
answers with the same code.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

from keeper.llm import grants

# The pace when the provider sets none, the least it may ask for, and how long a code
# lasts when it does not say.
DEFAULT_INTERVAL = 5.0
LEAST_INTERVAL = 1.0
DEFAULT_LIFETIME = 15 * 60.0
# RFC 8628 §3.5: after `slow_down`, every later request waits this much longer.
SLOW_DOWN_STEP = 5.0


class LoginEnded(Exception):
    """The sign-in ended without a grant. `reason`: denied, expired, timeout or
    failed (the provider could not be asked, or answered what it should not)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class DeviceCode:
    """A sign-in under way: what the keeper is shown, and what the poll sends."""

    provider: str
    verification_url: str
    user_code: str
    interval: float
    deadline: float
    secret: dict = field(default_factory=dict, repr=False)


_pending: dict[tuple[int, str], DeviceCode] = {}
_lock = threading.Lock()


def under_way(room_id: int, provider: str) -> DeviceCode | None:
    """The room's sign-in for `provider` under way, while its code is good."""
    with _lock:
        code = _pending.get((room_id, grants.canonical(provider)))
    return code if code is not None and time.time() < code.deadline else None


async def begin(room_id: int, provider: str) -> tuple[DeviceCode, bool]:
    """The room's sign-in for `provider`: the one under way (False), else a new one
    asked of the provider (True; the request in a worker thread, no lock held over
    it). Raises LoginEnded("failed")."""
    name = grants.canonical(provider)
    code = under_way(room_id, name)
    if code is not None:
        return code, False
    code = await asyncio.to_thread(_start, name)
    with _lock:
        earlier = _pending.get((room_id, name))
        if earlier is not None and time.time() < earlier.deadline:
            return earlier, False  # asked twice at once: the first code stands
        _pending[(room_id, name)] = code
    return code, True


def cancel(room_id: int, provider: str) -> None:
    """Drop the room's sign-in under way (`.model logout`): its poll stops."""
    with _lock:
        _pending.pop((room_id, grants.canonical(provider)), None)


def _post(url: str, *, json_body: dict | None = None, form: dict | None = None):
    from keeper.llm import guarded_http  # httpx is loaded with the first request

    with guarded_http.http_client(operator=True, timeout=grants.HTTP_TIMEOUT) as http:
        return http.post(url, json=json_body, data=form, headers={"Accept": "application/json"})


def _answer(response) -> dict:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _numbers(data: dict) -> tuple[float, float]:
    try:
        interval = float(data.get("interval") or DEFAULT_INTERVAL)
    except (TypeError, ValueError):
        interval = DEFAULT_INTERVAL
    try:
        lifetime = float(data.get("expires_in") or DEFAULT_LIFETIME)
    except (TypeError, ValueError):
        lifetime = DEFAULT_LIFETIME
    return max(LEAST_INTERVAL, interval), time.time() + lifetime


def _start(name: str) -> DeviceCode:
    base = grants.auth_url(name).rstrip("/")
    try:
        if name == "chatgpt":
            response = _post(
                f"{base}/api/accounts/deviceauth/usercode", json_body={"client_id": grants.client_id(name)}
            )
            data = _answer(response)
            device, user_code = data.get("device_auth_id"), data.get("user_code") or data.get("usercode")
            url = f"{base}/codex/device"
            secret = {"device_auth_id": str(device), "user_code": str(user_code)}
        else:
            response = _post(
                f"{base}/oauth2/device/code",
                form={
                    "client_id": grants.client_id(name),
                    "scope": "openid profile email offline_access grok-cli:access api:access",
                },
            )
            data = _answer(response)
            device, user_code = data.get("device_code"), data.get("user_code")
            url = data.get("verification_uri_complete") or data.get("verification_uri")
            secret = {"device_code": str(device)}
    except Exception as failed:
        raise LoginEnded("failed") from failed
    if response.status_code != 200 or not device or not user_code or not url:
        raise LoginEnded("failed")
    interval, deadline = _numbers(data)
    return DeviceCode(name, str(url), str(user_code), interval, deadline, secret)


def poll_once(code: DeviceCode) -> grants.Grant | None:
    """Ask the provider once: the grant when the keeper approved, None while it waits
    (after `slow_down`, `code.interval` has grown). Raises LoginEnded."""
    base = grants.auth_url(code.provider).rstrip("/")
    try:
        if code.provider == "chatgpt":
            response = _post(f"{base}/api/accounts/deviceauth/token", json_body=code.secret)
        else:
            response = _post(
                grants.token_endpoint(code.provider),
                form={
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                    "client_id": grants.client_id(code.provider),
                    "device_code": code.secret["device_code"],
                },
            )
        data = _answer(response)
        if response.status_code == 200:
            return _granted(code, data)
    except LoginEnded:
        raise
    except Exception as failed:
        raise LoginEnded("failed") from failed
    error = str(data.get("error") or "")
    if isinstance(data.get("error"), dict):  # ChatGPT's shape: {"error": {"code": ...}}
        error = str(data["error"].get("code") or "")
    if error == "slow_down":
        code.interval += SLOW_DOWN_STEP
        return None
    if error == "authorization_pending" or (not error and response.status_code in (403, 404)):
        return None
    if error == "access_denied":
        raise LoginEnded("denied")
    if error in ("expired_token", "deviceauth_expired"):
        raise LoginEnded("expired")
    raise LoginEnded("failed")


def _granted(code: DeviceCode, data: dict) -> grants.Grant:
    if code.provider != "chatgpt":
        return grants.grant_from_tokens(data)
    # ChatGPT answers an authorization code, exchanged (with its PKCE verifier) for tokens.
    authorization, verifier = data.get("authorization_code"), data.get("code_verifier")
    if not authorization or not verifier:
        raise LoginEnded("failed")
    base = grants.auth_url(code.provider).rstrip("/")
    response = _post(
        grants.token_endpoint(code.provider),
        form={
            "grant_type": "authorization_code",
            "code": str(authorization),
            "redirect_uri": f"{base}/deviceauth/callback",
            "client_id": grants.client_id(code.provider),
            "code_verifier": str(verifier),
        },
    )
    if response.status_code != 200:
        raise LoginEnded("failed")
    try:
        return grants.grant_from_tokens(_answer(response))
    except ValueError:
        raise LoginEnded("failed") from None


async def wait(room_id: int, code: DeviceCode) -> grants.Grant:
    """Poll at the provider's pace until the sign-in ends (each request in a worker
    thread; the waits hold none). Raises LoginEnded; the sign-in is no longer under
    way after."""
    try:
        while True:
            await asyncio.sleep(code.interval)
            with _lock:
                if _pending.get((room_id, code.provider)) is not code:
                    raise LoginEnded("cancelled")
            if time.time() >= code.deadline:
                raise LoginEnded("timeout")
            grant = await asyncio.to_thread(poll_once, code)
            if grant is not None:
                return grant
    finally:
        with _lock:
            if _pending.get((room_id, code.provider)) is code:
                del _pending[(room_id, code.provider)]
