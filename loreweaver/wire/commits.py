"""Group commit: turns that reach the database thread together share one commit.

Every turn ends in a commit, and a commit waits for the disk (SQLite with
`synchronous=FULL`, Postgres with `synchronous_commit`). Turns of different rooms that
queue for the process's one database thread while it is busy are run together in one
transaction, so the disk is waited for once per group
instead of once per turn. A turn's result is released only after the group's commit,
so nothing is broadcast before it is durable, and a failed commit fails every turn of
the group.

The turns of a group run one after another with no savepoint between them (a
savepoint and its release were two more statements per turn: about 4 % of an embedded
story line's server work, two more round trips on Postgres). A turn that fails takes
the transaction with it: the group's other turns then run again, without it, each in
its own savepoint, so the failed turn fails alone and is not run twice.

A group that finds its connection dropped by Postgres before its commit was sent (a
`pg_terminate_backend`, a restart, a failover: the kept connection's check cannot see a
drop Postgres has not finished saying) committed nothing, so it runs once more on a new
connection instead of failing its turns. A drop during the commit itself is not run
again: whether that commit landed cannot be known, and running it twice could store a
line twice. What a turn keeps outside the transaction it keeps again when run again (a
deleted character's copy for `.st undo`, in the cache: kept twice), and what it
decided afresh it decides again (its dice): nobody saw the first run.

A brief turn (a line of play, a roll: a few rows of its own) on an SQLite file runs on
the event loop's own thread instead, with the other brief turns of the same moment,
in one transaction. Handing each statement's GIL back and forth between the loop and
the database thread, on two cores, cost more than the statements themselves: an
embedded roll's server CPU fell by about a fifth. It never waits there: its connection
takes SQLite's write lock without waiting, and a group that finds it held (another
writer on the database thread, another process), or whose work fails, or leaves
something to run after its commit, is rolled back and goes to the database thread
like any other, where it runs again (as above: nobody saw the first run).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

from base import failpoints

T = TypeVar("T")

_Outcome = tuple[bool, Any]  # (succeeded, result or exception)


class _ConnectionLost(Exception):
    """The group's connection was dropped before its commit was sent."""


def _dropped(began_on: Any) -> bool:
    """Whether `began_on`, the driver connection a group began on, is gone: Django closed
    it (its rollback failed) or its driver marked it broken (psycopg's `closed`)."""
    return began_on is not connection.connection or getattr(began_on, "closed", False) is True


def _run_once(group: list[Callable[[], Any]]) -> list[_Outcome] | None:
    """Run `group` in one transaction; one outcome per work, in order, or None when the
    connection was dropped before the commit was sent (nothing was committed)."""
    results: list[Any] = []
    began_on: Any = None
    try:
        with transaction.atomic():
            began_on = connection.connection
            for work in group:
                results.append(work())
    except Exception as failure:
        if began_on is None or len(results) == len(group):  # not begun, or its commit failed
            return [(False, failure)] * len(group)
        if _dropped(began_on):
            return None
        if len(group) == 1:
            return [(False, failure)]
        # One turn failed, and the transaction with it: the others run again without it.
        failed = len(results)
        others = _run_apart(group[:failed] + group[failed + 1 :])
        if others is not None:
            others.insert(failed, (False, failure))
        return others
    return [(True, result) for result in results]


def _run_apart(group: list[Callable[[], Any]]) -> list[_Outcome] | None:
    """Run `group` in one transaction, each work in its own savepoint, so one that fails
    undoes only itself; as `_run_once` answers."""
    outcomes: list[_Outcome] = []
    began_on: Any = None
    committing = False
    try:
        with transaction.atomic():
            began_on = connection.connection
            for work in group:
                try:
                    with transaction.atomic():
                        outcomes.append((True, work()))
                except Exception as failure:
                    outcomes.append((False, failure))
            # A failed work may have met a dropped connection: then no commit is sent.
            if not all(succeeded for succeeded, _ in outcomes) and (
                _dropped(began_on) or not connection.is_usable()
            ):
                raise _ConnectionLost
            committing = True
    except _ConnectionLost:
        return None
    except Exception as failure:  # nothing of the group was committed
        if began_on is not None and not committing and _dropped(began_on):
            return None
        return [(False, failure)] * len(group)
    return outcomes


def _run_together(group: list[Callable[[], Any]]) -> list[_Outcome]:
    """Run `group` in one transaction, once more on a new connection if the first was
    dropped before its commit; one outcome per work, in order."""
    failpoints.hit("commit.group")  # a test holds the database thread here, before it begins
    outcomes = _run_once(group)
    if outcomes is None:
        connection.close()  # given back to the pool, which discards a broken one
        outcomes = _run_once(group)
    if outcomes is None:
        lost = _ConnectionLost("the database connection was lost twice")
        return [(False, lost)] * len(group)
    return outcomes


class _NotHere(Exception):
    """A brief group's work left something to run after its commit."""


def _runs_on_the_loop() -> bool:
    """Whether brief work may run on the event loop's thread: the database is an SQLite
    file (a query there is a call into the library, not a wait on the network; an
    in-memory database is one connection's, the database thread's)."""
    database = connections[DEFAULT_DB_ALIAS]
    return database.vendor == "sqlite" and not database.is_in_memory_db()


def _keeps_a_write_ahead_log(raw: Any) -> bool:
    """Whether the SQLite database of driver connection `raw` is in WAL mode."""
    return raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


class CommitGroup:
    """The waiting room of one event loop's database work (see the module docstring)."""

    def __init__(self) -> None:
        self._waiting: list[tuple[Callable[[], Any], asyncio.Future]] = []
        self._drainer: asyncio.Task | None = None
        self._on_the_loop = _runs_on_the_loop()
        self._brief: list[tuple[Callable[[], Any], asyncio.Future]] = []
        self._brief_due: asyncio.Handle | None = None
        self._prepared: Any = None  # the loop's SQLite connection, once set up (`_prepare`)

    async def run(self, work: Callable[[], T], *, brief: bool = False) -> T:
        """Run `work` (synchronous; on the database thread, or, `brief`, on the event
        loop's when it may) and return its result once the transaction that holds it has
        committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        if brief and self._on_the_loop:
            self._brief.append((work, future))
            if self._brief_due is None:  # the brief work of this moment, together
                self._brief_due = loop.call_soon(self._run_brief)
            return await future
        self._queue(work, future)
        return await future

    def _queue(self, work: Callable[[], Any], future: asyncio.Future) -> None:
        self._waiting.append((work, future))
        if self._drainer is None:
            self._drainer = asyncio.get_running_loop().create_task(self._drain())

    def _run_brief(self) -> None:
        self._brief_due = None
        waiting, self._brief = self._brief, []
        outcomes = self._run_here([work for work, _ in waiting])
        if outcomes is None:  # nothing was committed: the database thread runs it again
            for work, future in waiting:
                self._queue(work, future)
            return
        _settle(waiting, outcomes)

    def _run_here(self, group: list[Callable[[], Any]]) -> list[_Outcome] | None:
        """Run `group` in one transaction on this thread, the event loop's: one outcome
        per work, or None when nothing was committed and the group belongs to the
        database thread (the write lock was held, a work failed, or one left something
        to run after the commit)."""
        loop = asyncio.get_running_loop()
        # Django refuses a query on a thread where an event loop runs, for fear that it
        # stalls the loop; a brief group on an SQLite file is why this one should.
        asyncio._set_running_loop(None)
        results: list[Any] = []
        committing = False
        try:
            connection.ensure_connection()
            if connection.connection is not self._prepared and not self._prepare(connection.connection):
                return None
            # The write lock at BEGIN (IMMEDIATE, the embedded settings') or at the first
            # write (a DATABASE_URL's sqlite:// keeps SQLite's default): SQLITE_BUSY at once.
            with transaction.atomic():
                for work in group:
                    results.append(work())
                if connection.run_on_commit:  # listeners that publish: they need a thread
                    raise _NotHere
                committing = True
        except Exception as failure:
            if not committing:
                return None
            return [(False, failure)] * len(group)  # the commit failed: nothing to run again
        finally:
            asyncio._set_running_loop(loop)
        return [(True, result) for result in results]

    def _prepare(self, raw: Any) -> bool:
        """Set the loop's SQLite connection `raw` never to wait for the write lock (this
        thread uses it for brief work only); false, and no more brief work here, when the
        database keeps no write-ahead log: a reader would then hold off the commit, which
        could not go to the thread once begun."""
        if not _keeps_a_write_ahead_log(raw):
            self._on_the_loop = False
            return False
        raw.execute("PRAGMA busy_timeout = 0")  # the lock held elsewhere: SQLITE_BUSY at once
        self._prepared = raw
        return True

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
                _settle(waiting, outcomes)
        finally:
            self._drainer = None


def _settle(waiting: list[tuple[Callable[[], Any], asyncio.Future]], outcomes: list[_Outcome]) -> None:
    """Release each waiting turn with its work's outcome."""
    for (_, future), (succeeded, result) in zip(waiting, outcomes, strict=True):
        if future.done():
            continue
        if succeeded:
            future.set_result(result)
        else:
            future.set_exception(result)


_groups: dict[asyncio.AbstractEventLoop, CommitGroup] = {}


async def committed(work: Callable[[], T], *, brief: bool = False) -> T:
    """Run `work` on the database thread, committed together with whatever other work
    of this process is waiting for the thread at the same time. `brief` work (short,
    and sure to write only rows of its own: a line, a roll) runs on the event loop's
    thread when the database is an SQLite file (see the module docstring)."""
    loop = asyncio.get_running_loop()
    group = _groups.get(loop)
    if group is None:
        for stale in [other for other in _groups if other.is_closed()]:
            del _groups[stale]
        group = _groups[loop] = CommitGroup()
    return await group.run(work, brief=brief)
