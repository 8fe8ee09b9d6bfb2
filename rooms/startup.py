"""What both server commands do before they accept players."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from rooms.models import AccessKey
from rooms.services import MintedKey, key_mint, keys_import_toml

BOOTSTRAP_ROOM = "table"
BOOTSTRAP_NAME = "Keeper"


def import_configured_keys() -> str | None:
    """Import the keys.toml named by TRPG_TUI_KEYS, if any; returns a summary line."""
    if not settings.TRPG_KEYS_FILE:
        return None
    path = Path(settings.TRPG_KEYS_FILE)
    if not path.exists():
        return f"TRPG_TUI_KEYS names {path}, which does not exist; no keys imported."
    report = keys_import_toml(path)
    return f"Imported {report.added} key(s) from {path} ({report.skipped} already present)."


def bootstrap_keeper_key() -> MintedKey | None:
    """On a server with no key at all, mint a keeper key for the room `table`."""
    if AccessKey.objects.exists():
        return None
    return key_mint(room=BOOTSTRAP_ROOM, name=BOOTSTRAP_NAME, role="keeper")
