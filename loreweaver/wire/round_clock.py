"""Structured rounds closed by their time, by any live server process.

A structured round's deadline is kept in the shared store (`coordination`: Redis
hosted, this process's cache embedded), not in the memory of the process where the
round opened, so a round still closes on time after that process died. Every process
looks at the kept deadlines a few times a second; for a round whose time is up, the
first process to take the room's round-closing lock answers it
(`turns.close_round_in_time`, under the room's turn), and the others leave it be.
"""

from __future__ import annotations

import asyncio
import logging

from loreweaver.wire import coordination, turns
from loreweaver.wire.seats import log_failure

log = logging.getLogger(__name__)

# How often each process looks for rounds whose time is up: a round closes at most
# this late.
LOOK_EVERY = 0.25
# How long a process that took a round to close keeps the others off it. A closer
# that died leaves the round to the next look after this; one that outlives it is
# harmless (the round is closed under the room's turn, once).
CLOSING_LOCK_TTL = 30.0


class RoundClock:
    """This process's looks at the structured rounds' deadlines, until cancelled."""

    def __init__(self) -> None:
        self._closing: dict[int, asyncio.Task] = {}  # the rooms this process is closing

    async def run(self) -> None:
        """Until cancelled."""
        while True:
            try:
                await self.look()
            except Exception as exc:  # the store is away: the next look tries again
                log_failure(exc, "could not look for rounds whose time is up")
            await asyncio.sleep(LOOK_EVERY)

    async def look(self) -> None:
        """Start closing each round whose time is up (one task per room)."""
        for room_id, due in (await coordination.shared().rounds_due()).items():
            if room_id not in self._closing:
                task = asyncio.create_task(self._close(room_id, due))
                self._closing[room_id] = task
                task.add_done_callback(lambda _task, room_id=room_id: self._closing.pop(room_id, None))

    @staticmethod
    async def _close(room_id: int, due: dict) -> None:
        try:
            async with coordination.shared().closing_round(room_id, CLOSING_LOCK_TTL) as mine:
                if mine:
                    await turns.close_round_in_time(room_id, due)
        except Exception as exc:
            log_failure(exc, "room=%s a round whose time is up could not be closed", room_id)
