"""What the packs tell the layers above them, as Django signals (sent inside the
transaction that made the change; listeners act once it commits)."""

from __future__ import annotations

from django.dispatch import Signal

# The panels of a room changed other than through its own `.panels` command (a pack
# that was on there was removed) (`room_id`): every member gets its own `ui_manifest`.
room_panels_changed = Signal()
