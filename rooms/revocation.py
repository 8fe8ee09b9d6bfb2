"""Changes to access keys reach the sessions that joined with them, at once, on every
process and both carriers: a deleted key (or one moved to another room) closes its
sessions with `bad_key`; a rename or a role change welcomes them again as they are now.

Whatever changes a key (an admin frame, the operator console, a cascade when a room is
deleted) goes through the model, so the model's signals are where this listens. The
announcement is sent once the change is committed, as a `room.key` message on the
room's group (`rooms.hub`).
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from rooms import hub
from rooms.models import AccessKey

log = logging.getLogger(__name__)


def _announce(room_id: int, key_id: int) -> None:
    try:
        async_to_sync(hub.publish_key_changed)(room_id, key_id)
    except Exception as exc:  # the change itself stands; sessions re-check the key on their next act
        log.warning("room=%s key change not announced: %r", room_id, exc)


def key_changed(sender: type, instance: AccessKey, created: bool = False, **kwargs: object) -> None:
    """A key was saved or deleted: tell its sessions once the transaction commits."""
    if created:
        return  # nobody has joined with a key that did not exist
    room_id, key_id = instance.room_id, instance.pk
    transaction.on_commit(lambda: _announce(room_id, key_id))


def connect() -> None:
    """Listen to access key changes (called once, when the app is ready)."""
    post_save.connect(key_changed, sender=AccessKey, dispatch_uid="rooms.revocation.saved")
    post_delete.connect(key_changed, sender=AccessKey, dispatch_uid="rooms.revocation.deleted")
