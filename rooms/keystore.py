"""The keys the operator manages from files: TRPG_TUI_KEYS and the first keeper key."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from base import failpoints
from rooms.models import AccessKey
from rooms.services import MintedKey, key_lookup, key_mint, keys_import_toml

BOOTSTRAP_ROOM = "table"
BOOTSTRAP_NAME = "Keeper"


def import_configured_keys() -> str | None:
    """Import the keys.toml named by TRPG_TUI_KEYS, if any; returns a summary line."""
    if not settings.TRPG_KEYS_FILE:
        return None
    global _imported_mtime
    path = Path(settings.TRPG_KEYS_FILE)
    if not path.exists():
        return f"TRPG_TUI_KEYS names {path}, which does not exist; no keys imported."
    _imported_mtime = path.stat().st_mtime
    report = keys_import_toml(path)
    return f"Imported {report.added} key(s) from {path} ({report.skipped} already present)."


_imported_mtime: float | None = None


def reload_configured_keys() -> bool:
    """Import TRPG_TUI_KEYS again if the file changed since this process last read it.

    Lets an operator add a key to keys.toml while the server runs, as with the
    reference server. Removing a line does not revoke a key: use the admin for that.
    Returns whether anything was imported.
    """
    global _imported_mtime
    if not settings.TRPG_KEYS_FILE:
        return False
    try:
        mtime = Path(settings.TRPG_KEYS_FILE).stat().st_mtime
    except OSError:
        return False
    if mtime == _imported_mtime:
        return False
    _imported_mtime = mtime
    return keys_import_toml(Path(settings.TRPG_KEYS_FILE)).added > 0


def bootstrap_keeper_key() -> MintedKey | None:
    """On a server with no key at all, mint a keeper key for the room `table`."""
    if AccessKey.objects.exists():
        return None
    return key_mint(room=BOOTSTRAP_ROOM, name=BOOTSTRAP_NAME, role="keeper")


def key_lookup_at_join(key: str) -> AccessKey | None:
    """The key a joining client presented, re-reading TRPG_TUI_KEYS once if it changed."""
    failpoints.hit("join.check")  # a test holds a join here, while its key is checked
    found = key_lookup(key)
    if found is None and key and reload_configured_keys():
        found = key_lookup(key)
    return found
