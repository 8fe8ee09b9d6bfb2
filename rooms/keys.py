"""What can be derived from an access key, without ever storing it."""

from __future__ import annotations

import hashlib
import re
import secrets

KEY_BYTES = 24  # 32 URL-safe characters
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def new_key() -> str:
    """A fresh random access key (URL-safe, 32 characters)."""
    return secrets.token_urlsafe(KEY_BYTES)


def key_digest(key: str) -> str:
    """The SHA-256 hex digest the database stores instead of the key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def member_id_for(key: str) -> str:
    """The protocol's key-derived member id: `tui:` + the first 8 hex of SHA-1."""
    return "tui:" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]


def mask_key(key: str) -> str:
    """A display form that identifies a key without revealing it."""
    if len(key) <= 8:
        return "*" * len(key)
    return f"{key[:4]}...{key[-4:]}"


def is_digest(text: str) -> bool:
    """Whether `text` looks like a SHA-256 hex digest."""
    return bool(_DIGEST.match(text))
