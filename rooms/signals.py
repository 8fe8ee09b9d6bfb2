"""What the table tells the layers above it, as Django signals (sent inside the
transaction that made the change; listeners act once it commits)."""

from __future__ import annotations

from django.dispatch import Signal

# A room's story was reset, replaced by a backup, or deleted with its keys
# (`room_id`): every connected member gets a fresh state (`state{reset:true}`).
room_story_replaced = Signal()

# Something players see in a room (a character's values, an NPC, the module, the
# settings) was changed from outside play, in the operator console (`room_id`): every
# connected member gets a fresh state, as after the same change made by a command.
room_edited = Signal()
