"""Group commit: turns that reach the database thread together share one commit.

Every turn ends in a commit, and a commit waits for the disk (SQLite with
`synchronous=FULL`, Postgres with `synchronous_commit`). Turns of different rooms that
queue for the process's one database thread while it is busy are run together in one
transaction, each in its own savepoint, so the disk is waited for once per group
instead of once per turn. A turn's result is released only after the group's commit,
so nothing is broadcast before it is durable; a turn that fails rolls back to its
savepoint alone, and a failed commit fails every turn of the group.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from django.db import transaction

T = TypeVar("T")

_Outcome = tuple[bool, Any]  # (succeeded, result or exception)


def _run_together(group: list[Callable[[], Any]]) -> list[_Outcome]:
    """Run `group` in one transaction; one outcome per work, in order."""
    outcomes: list[_Outcome] = []
    try:
        with transaction.atomic():
            if len(group) == 1:  # alone, its failure is the transaction's: no savepoint
                outcomes.append((True, group[0]()))
            else:
                for work in group:
                    try:
                        with transaction.atomic():
                            outcomes.append((True, work()))
                    except Exception as failure:
                        outcomes.append((False, failure))
    except Exception as failure:  # nothing of the group was committed
        return [(False, failure)] * len(group)
    return outcomes


class CommitGroup:
    """The waiting room of one event loop's database work (see the module docstring)."""

    def __init__(self) -> None:
        self._waiting: list[tuple[Callable[[], Any], asyncio.Future]] = []
        self._drainer: asyncio.Task | None = None

    async def run(self, work: Callable[[], T]) -> T:
        """Run `work` (synchronous, on the database thread) and return its result once
        the transaction that holds it has committed."""
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._waiting.append((work, future))
        if self._drainer is None:
            self._drainer = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                waiting, self._waiting = self._waiting, []
                try:
                    outcomes = await database_sync_to_async(_run_together)([work for work, _ in waiting])
                except asyncio.CancelledError:  # shutdown: nobody waits forever
                    for _, future in waiting + self._waiting:
                        future.cancel()
                    raise
                except Exception as failure:  # the database thread itself failed
                    outcomes = [(False, failure)] * len(waiting)
                for (_, future), (succeeded, result) in zip(waiting, outcomes, strict=True):
                    if future.done():
                        continue
                    if succeeded:
                        future.set_result(result)
                    else:
                        future.set_exception(result)
        finally:
            self._drainer = None


_groups: dict[asyncio.AbstractEventLoop, CommitGroup] = {}


async def committed(work: Callable[[], T]) -> T:
    """Run `work` on the database thread, committed together with whatever other work
    of this process is waiting for the thread at the same time."""
    loop = asyncio.get_running_loop()
    group = _groups.get(loop)
    if group is None:
        for stale in [other for other in _groups if other.is_closed()]:
            del _groups[stale]
        group = _groups[loop] = CommitGroup()
    return await group.run(work)
