"""What a process keeps of the room turns it waits for and holds (`coordination.py`
runs the queue): a waiting ticket, and the renewal of a held turn's lease."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from loreweaver.wire.stores import TURN_LEASE_TTL, Store


class LeaseRenewal:
    """Renews a held turn's lease every third of its life, until stopped: a timer, and
    a task only while a renewal is written. Most turns end before the first renewal,
    and a task started and cancelled for each was a tenth of the turn queue's cost."""

    def __init__(self, store: Store, key: str, lease: dict) -> None:
        self.store, self.key, self.lease = store, key, lease
        self._writing: asyncio.Task | None = None
        self._timer = self._later()

    def _later(self) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(TURN_LEASE_TTL / 3, self._due)

    def _due(self) -> None:
        self._writing = asyncio.ensure_future(self._renew())

    async def _renew(self) -> None:
        with contextlib.suppress(Exception):  # a store blip: the next renewal retries
            await self.store.set(self.key, self.lease, TURN_LEASE_TTL)
        self._timer = self._later()

    def stop(self) -> None:
        """No renewal after this one (a renewal being written is cancelled)."""
        self._timer.cancel()
        if self._writing is not None:
            self._writing.cancel()


@dataclass
class Waiter:
    """A ticket of this process waiting for its room's turn."""

    actor: str
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    # The lease the turn before handed this ticket the turn with (`room_turn`), if it did.
    handed: dict | None = None
