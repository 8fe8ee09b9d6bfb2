"""How a server process manages its memory (both serving commands call this)."""

from __future__ import annotations

import gc


def tune_garbage_collection() -> None:
    """Collect garbage the way a long-running server with thousands of connections needs.

    Python's default thresholds run a full collection every few hundred thousand
    allocations, and a full collection walks every live object: with 3,000 joined
    members that is a pause of about half a second, taken out of every room's turns
    (bench/fanout.py --idle). What exists at startup (Django, the apps, the rule packs)
    is frozen out of collection for good, and the young generation is collected less
    often; cycles among young objects (most of the garbage a turn makes) still are.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
