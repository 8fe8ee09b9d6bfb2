"""What the table's changes mean for live sessions, on every process and carrier.

- Access keys: a deleted key (or one moved to another room) closes its sessions with
  `bad_key`; a rename or a role change welcomes them again as they are now. Whatever
  changes a key (an admin frame, the operator console, a cascade when a room is
  deleted) goes through the model, whose signals the table turns into its own
  `access_key_changed` (`rooms/signals.py`).
- A room's story replaced (a reset, a restored backup, deleted data), by whichever
  door it came: every member gets a fresh `state{reset:true}`.
- What a room's members see edited in the operator console (a character, an NPC, the
  module, the settings): every member gets a fresh `state`.
- A room's panels changed from outside it (a pack that was on there was removed, from
  a keeper's `.pack remove`, the shell or the console): every member gets its own
  `ui_manifest`.

Each announcement goes out once the change is committed, on the room's group
(`loreweaver.wire.hub`).

Only the table's and the packs' own signals are listened to, never a model's: the
app that owns a model says what its rows' changes mean (as `rooms` does for keys), so
the wire names no model and the layers below import nothing of the wire.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync
from django.db import transaction

from loreweaver.wire import hub
from packs.signals import room_panels_changed
from rooms.signals import access_key_changed, room_edited, room_story_replaced

log = logging.getLogger(__name__)


def _announce(publish: Callable[..., Awaitable[None]], room_id: int, *args: object, **kwargs: object) -> None:
    try:
        async_to_sync(publish)(room_id, *args, **kwargs)
    except Exception as exc:  # the change itself stands; sessions re-read the room on their next act
        log.warning("room=%s change not announced: %r", room_id, exc)


def key_changed(sender: type, room_id: int, key_id: int, **kwargs: object) -> None:
    """A key was changed or deleted: tell its sessions once the transaction commits."""
    transaction.on_commit(lambda: _announce(hub.publish_key_changed, room_id, key_id))


def story_replaced(sender: type, room_id: int, told: dict | None = None, **kwargs: object) -> None:
    """A room's story was reset or replaced: once it commits, its members are shown the
    room as it is now, and told what happened (`told`: the backup restored and the one
    that undoes it, or the reset's scope)."""
    transaction.on_commit(lambda: _announce(hub.publish_state_refresh, room_id, reset=True, told=told or {}))


def edited_by_operator(sender: type, room_id: int, **kwargs: object) -> None:
    """An operator changed what a room's members see: a fresh state once it commits."""
    transaction.on_commit(lambda: _announce(hub.publish_state_refresh, room_id))


def panels_changed(sender: type, room_id: int, **kwargs: object) -> None:
    """A room's panels changed: its members get their manifests once it commits."""
    transaction.on_commit(lambda: _announce(hub.publish_manifests, room_id))


def connect() -> None:
    """Listen to the table's changes (called once, when the app is ready)."""
    access_key_changed.connect(key_changed, dispatch_uid="wire.key.changed")
    room_story_replaced.connect(story_replaced, dispatch_uid="wire.story.replaced")
    room_edited.connect(edited_by_operator, dispatch_uid="wire.room.edited")
    room_panels_changed.connect(panels_changed, dispatch_uid="wire.panels.changed")
