"""What the table tells the layers above it, as Django signals (sent inside the
transaction that made the change; listeners act once it commits)."""

from __future__ import annotations

from django.dispatch import Signal

# A room's story was reset, replaced by a backup, or deleted with its keys
# (`room_id`): every connected member gets a fresh state (`state{reset:true}`).
room_story_replaced = Signal()
