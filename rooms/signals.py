"""What the table tells the layers above it, as Django signals (sent inside the
transaction that made the change; listeners act once it commits)."""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

# A room's story was reset, replaced by a backup, or deleted with its keys
# (`room_id`): every connected member gets a fresh state (`state{reset:true}`).
room_story_replaced = Signal()

# Something players see in a room (a character's values, an NPC, the module, the
# settings) was changed from outside play, in the operator console (`room_id`): every
# connected member gets a fresh state, as after the same change made by a command.
room_edited = Signal()

# An access key was changed or deleted (`room_id`, `key_id`), by whichever door (an
# admin frame, the console, a cascade when its room is deleted): the sessions that
# joined with it read it again (revocation, renames, role changes). Sent by
# `key_saved_or_deleted`, which the app connects to the key's own model signals: the
# table, which owns the model, turns its rows' changes into a signal of its own, so a
# layer above listens to the table and never names the model (nor does the table
# import anything of theirs).
access_key_changed = Signal()


def key_saved_or_deleted(sender: type, instance: Any, created: bool = False, **kwargs: object) -> None:
    """`post_save` / `post_delete` of an access key: `access_key_changed`, unless the
    key was just made (nobody has joined with a key that did not exist)."""
    if not created:
        access_key_changed.send(sender=sender, room_id=instance.room_id, key_id=instance.pk)
