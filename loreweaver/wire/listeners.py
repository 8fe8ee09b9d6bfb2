"""What the table's changes mean for live sessions, on every process and carrier.

- Access keys: a deleted key (or one moved to another room) closes its sessions with
  `bad_key`; a rename or a role change welcomes them again as they are now. Whatever
  changes a key (an admin frame, the operator console, a cascade when a room is
  deleted) goes through the model, so the model's signals are where this listens.
- A room's story replaced (a reset, a restored backup, deleted data), by whichever
  door it came: every member gets a fresh `state{reset:true}`.
- What a room's members see edited in the operator console (a character, an NPC, the
  module, the settings): every member gets a fresh `state`.
- A room's panels changed from outside it (a pack that was on there was removed, from
  a keeper's `.pack remove`, the shell or the console): every member gets its own
  `ui_manifest`.

Each announcement goes out once the change is committed, on the room's group
(`loreweaver.wire.hub`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from loreweaver.wire import hub
from packs.models import InstalledPack
from packs.signals import room_panels_changed
from rooms.models import AccessKey, Room
from rooms.signals import room_edited, room_story_replaced

log = logging.getLogger(__name__)


def _announce(publish: Callable[..., Awaitable[None]], room_id: int, *args: object, **kwargs: object) -> None:
    try:
        async_to_sync(publish)(room_id, *args, **kwargs)
    except Exception as exc:  # the change itself stands; sessions re-read the room on their next act
        log.warning("room=%s change not announced: %r", room_id, exc)


def key_changed(sender: type, instance: AccessKey, created: bool = False, **kwargs: object) -> None:
    """A key was saved or deleted: tell its sessions once the transaction commits."""
    if created:
        return  # nobody has joined with a key that did not exist
    room_id, key_id = instance.room_id, instance.pk
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
    post_save.connect(key_changed, sender=AccessKey, dispatch_uid="wire.key.saved")
    post_delete.connect(key_changed, sender=AccessKey, dispatch_uid="wire.key.deleted")
    room_story_replaced.connect(story_replaced, sender=Room, dispatch_uid="wire.story.replaced")
    room_edited.connect(edited_by_operator, dispatch_uid="wire.room.edited")
    room_panels_changed.connect(panels_changed, sender=InstalledPack, dispatch_uid="wire.panels.changed")
