"""Stopping a server process without cutting a turn off (SIGTERM: a deploy, `docker
compose stop`, Ctrl-C).

The process first stops taking connections (the carrier's own listener closes), then:

1. new inputs are refused with a word to send them again once reconnected, so nothing
   is half-played;
2. the turns already accepted finish, for at most `TRPG_SHUTDOWN_GRACE` seconds (a
   Keeper's answer streams to the end and is stored);
3. every joined member is told the server is restarting and the connection closes
   with a code that means "come back" (WebSocket 1012, service restart), after every
   frame of those turns: the goodbye travels the room's bus behind them, so it cannot
   overtake them. A member the bus cannot reach (its Redis is away) is closed directly.

Clients reconnect, to another process or to this one restarted, and the replay gives
them whatever they missed. Only then is whatever is left cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol, cast

from django.conf import settings

from loreweaver.wire import coordination, hub

log = logging.getLogger(__name__)

# How long the goodbyes may take to reach the members once the turns are done.
GOODBYE_SECONDS = 5.0


class Leaving(Protocol):
    """What a stopping process needs of each joined connection (a `SessionCore`)."""

    @property
    def finished(self) -> asyncio.Task:
        """Done once the connection's last frame is written and it is closed."""

    async def say_goodbye(self) -> None:
        """Tell the member the server is restarting, then close with a reconnectable code."""


class _Stopping:
    def __init__(self) -> None:
        self.draining = False
        self.turns: set[asyncio.Task] = set()


_state = _Stopping()


def draining() -> bool:
    """Whether this process is stopping (new inputs are refused)."""
    return _state.draining


def track_turns(task: asyncio.Task) -> None:
    """Count `task` (a member's queue of accepted inputs) as a turn in flight."""
    _state.turns.add(task)
    task.add_done_callback(_state.turns.discard)


def is_our_goodbye(message: dict) -> bool:
    """Whether a room message is this process's signal to close its members."""
    return message.get("type") == "room.restart" and message.get("process") == coordination.PROCESS_ID


async def drain(grace: float | None = None) -> None:
    """Finish this process's turns in flight (up to `grace` seconds), then close every
    joined member with a reconnectable code. The listeners must be closed already."""
    _state.draining = True
    grace = settings.TRPG_SHUTDOWN_GRACE if grace is None else grace
    running = [task for task in _state.turns if not task.done()]
    if running:
        log.info("stopping: letting %d turn(s) in flight finish (up to %gs)", len(running), grace)
        _, late = await asyncio.wait(running, timeout=grace)
        if late:
            log.warning("stopping: %d turn(s) still running after %gs are cut off", len(late), grace)
    await _close_members()


async def _close_members() -> None:
    rooms = hub.local_hub.rooms()
    sessions = [cast(Leaving, session) for listeners in rooms.values() for session in listeners]
    for room_id in rooms:
        try:
            await hub.local_hub.publish(room_id, {"type": "room.restart", "process": coordination.PROCESS_ID})
        except Exception as exc:  # the bus is away: the direct close below covers it
            log.warning("stopping: room=%s goodbye not published: %r", room_id, exc)
    if sessions:
        await asyncio.wait([session.finished for session in sessions], timeout=GOODBYE_SECONDS)
    left = [session for session in sessions if not session.finished.done()]
    if left:
        log.warning("stopping: closing %d member(s) the room bus did not reach", len(left))
        await asyncio.gather(*(session.say_goodbye() for session in left), return_exceptions=True)
    log.info("stopping: %d member(s) were told to reconnect", len(sessions))
