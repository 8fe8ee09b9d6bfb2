"""State that every server process must agree on: presence, rate limits, the turn queue,
structured rounds' deadlines.

It lives in a store, never in this module's own globals: Redis when REDIS_URL is set
(every daphne worker and the Iroh sidecar see the same keys), the process's memory
(`stores.ProcessMemory`) in the embedded single-process profile. The logic is written
once over a small key-value store (`loreweaver.wire.stores`) with two implementations.
Presence is a hash per room, one field per connection, changed without a lock. The
steps on every input's path (a rate-limit take, drawing, claiming and releasing a turn,
or releasing it to the next ticket of the same process, which then claims nothing) are
single atomic operations of the store: one Lua script, one round trip, on Redis;
only skipping a dead ticket in the turn queue takes a short mutex (SET NX on Redis,
released by a compare-and-delete script, so only by its own holder). Times that
processes compare are the store's clock (`Store.now`), never a process's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from django.conf import settings

from base import failpoints
from loreweaver.wire.stores import TURN_LEASE_TTL, LocalStore, RedisStore, Store
from loreweaver.wire.turn_holds import LeaseRenewal, Waiter

log = logging.getLogger(__name__)

# This process's identity in the shared registries; its heartbeat key proves it alive,
# so entries left behind by a killed process stop counting once the key expires.
PROCESS_ID = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
PROCESS_TTL = 2
PROCESS_HEARTBEAT_SECONDS = 0.5
# A process counts as dead once its heartbeat has been seen missing for this long, not
# at the first look: a Redis that restarted empty has lost every heartbeat, and the
# live processes put theirs back within a heartbeat.
PROCESS_ABSENCE_CONFIRM = 1.0

MUTEX_TTL = 5
# A ticket at the head of the queue whose process is alive must claim its turn within
# this many seconds, else the queue moves on (its waiter is gone).
TURN_CLAIM_GRACE = 10.0
# A ticket at the head of the queue that nobody owns (the store lost its data since it
# was drawn) is skipped after this long; owners are recorded right after the draw.
TURN_OWNER_GRACE = 2.0
GAVE_UP = "gave-up"
# The longest a waiter on another process sleeps between two looks at the queue.
TURN_POLL_MAX = 0.02
# The same when turns that end are announced (`on_release`): the looks are only a
# fallback then, for an announcement lost with the bus, and for a holder that died.
TURN_POLL_MAX_ANNOUNCED = 0.25

# Wrong keys from one source (an IP address, an Iroh endpoint): the first
# TRPG_RATE__BAD_KEYS_FREE are answered at once (typos), then each waits twice as long
# as the one before, up to a cap; a source is forgiven once it has sent no wrong key
# for the window.
BAD_KEY_FIRST_DELAY = 0.5
BAD_KEY_MAX_DELAY = 8.0
BAD_KEY_WINDOW = 600


def _entry(member: Member, process_id: str) -> list[str]:
    return [member.member_id, member.name, member.role, process_id]


def bad_key_delay(failures: int) -> float:
    """How long the answer to a source's `failures`-th wrong key waits."""
    free = settings.TRPG_RATE_BAD_KEYS_FREE
    if failures <= free:
        return 0.0
    return min(BAD_KEY_FIRST_DELAY * 2 ** (failures - free - 1), BAD_KEY_MAX_DELAY)


_shared: Coordination | None = None


def shared() -> Coordination:
    """The coordination of the configured profile (Redis, or this process's cache)."""
    global _shared
    if _shared is None:
        if settings.REDIS_URL:
            _shared = Coordination(RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX))
        else:
            _shared = Coordination(LocalStore())
    return _shared


@dataclass(frozen=True)
class Member:
    """A member currently connected to a room (on any process, any carrier)."""

    member_id: str
    name: str
    role: str


class Coordination:
    """Presence, rate limits, the turn queue and process liveness over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # This process's waiters of each room (per event loop), by ticket. Only the
        # lowest ticket of a room looks at the queue, and only while another process
        # holds the turn; the others sleep until a turn here ends or the waiter ahead
        # of them leaves, so six members waiting in a room cost one look, not six.
        self._waiters: dict[tuple[int, int], dict[int, Waiter]] = {}
        # The rooms whose turn this process holds (per event loop).
        self._holding: set[tuple[int, int]] = set()
        # The lease of each room whose turn this process holds (one turn per room).
        self._held_leases: dict[int, dict] = {}
        # When each process whose heartbeat is missing was first seen without one.
        self._absent_since: dict[str, float] = {}
        # Rooms where this process skipped a Keeper turn whose process died mid-turn
        # (room -> whose turn it was): the table should hear that it ended.
        self.cut_off: dict[int, str] = {}
        self._releasing: set[asyncio.Task] = set()  # releases retried after a store failure
        # Tells the other processes that a turn of the room ended (set by the hub when
        # the room bus spans processes); their waiters then look at once (`turn_freed`).
        self.on_release: Callable[[int], Awaitable[None]] | None = None

    def turn_freed(self, room_id: int) -> None:
        """A turn of the room ended on another process: the first waiter here looks."""
        self._wake_first_waiter(room_id)

    def _local(self, room_id: int) -> tuple[int, int]:
        return (id(asyncio.get_running_loop()), room_id)

    def _wake_first_waiter(self, room_id: int) -> None:
        """Let this process's lowest waiting ticket of the room look at the queue again."""
        waiters = self._waiters.get(self._local(room_id))
        if waiters:
            waiters[min(waiters)].woken.set()

    @asynccontextmanager
    async def mutex(self, name: str, ttl: float = MUTEX_TTL) -> AsyncIterator[None]:
        """Hold a short cross-process lock around a read-modify-write of shared keys.

        The lock expires by itself after `ttl` seconds, so a killed holder cannot wedge
        a room. Its release is one compare-and-delete of the store: a holder that
        outlived its lock (a stall) leaves the next holder's in place.
        """
        key = f"mutex:{name}"
        token = uuid.uuid4().hex
        delay = 0.0005
        while not await self.store.lock(key, token, ttl):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.005)
        try:
            yield
        finally:
            if not await self.store.unlock(key, token):
                log.warning("mutex %s expired before its holder released it", name)

    # --- process liveness -------------------------------------------------------------------

    async def process_heartbeat(self) -> None:
        """Mark this process alive for PROCESS_TTL seconds."""
        await self.store.set(f"proc:{PROCESS_ID}", time.time(), PROCESS_TTL)

    async def _live_processes(self, process_ids: set[str]) -> set[str]:
        found = await self.store.get_many([f"proc:{p}" for p in process_ids])
        beating = {key.split(":", 1)[1] for key in found}
        now = time.monotonic()
        for process_id in beating:
            self._absent_since.pop(process_id, None)
        alive = set(beating)
        for process_id in process_ids - beating:
            if now - self._absent_since.setdefault(process_id, now) < PROCESS_ABSENCE_CONFIRM:
                alive.add(process_id)  # not confirmed dead yet
        if len(self._absent_since) > 1000:  # long-dead processes need no more watching
            self._absent_since = {p: t for p, t in self._absent_since.items() if now - t < 60}
        return alive

    async def _alive(self, process_id: str) -> bool:
        return process_id in await self._live_processes({process_id})

    async def store_epoch(self) -> str:
        """An id of the store's current life. It changes when the store lost its data
        (a Redis restarted without persistence): then every process must put back what
        it holds there (`loreweaver.wire.hub.Upkeep`)."""
        epoch = await self.store.get("epoch")
        if epoch is None:
            await self.store.add("epoch", uuid.uuid4().hex, None)
            epoch = await self.store.get("epoch")
        return epoch

    # --- presence -------------------------------------------------------------------------

    # Presence is a hash per room, one field per live connection (its member and the
    # process that holds it): each connection's entry is written and removed on its
    # own, so no change needs a lock, and a killed process's entries are dropped by
    # whoever next sees its heartbeat missing.

    async def presence_add(self, room_id: int, connection_id: str, member: Member) -> None:
        """Record one live connection of `member` in the room."""
        await self.store.hash_set(f"online:{room_id}", {connection_id: _entry(member, PROCESS_ID)})

    async def presence_remove(self, room_id: int, connection_id: str) -> None:
        """Forget one connection; dead processes' entries are dropped on the way."""
        key = f"online:{room_id}"
        await self.store.hash_delete(key, [connection_id])
        entries = await self.store.hash_all(key)
        alive = await self._live_processes({e[3] for e in entries.values()})
        await self.store.hash_delete(key, [c for c, e in entries.items() if e[3] not in alive])

    async def presence_sync(self, room_id: int, mine: Callable[[], dict[str, Member]]) -> bool:
        """Make this process's entries in the room exactly `mine()` (connection id ->
        member) and drop the entries of dead processes. Returns whether anything
        changed (then the room's members should hear of it).

        Puts presence back after the store lost it, takes out what a failed teardown
        left, and ends a killed process's ghosts. A plain read when all is well.
        """
        key = f"online:{room_id}"
        entries = await self.store.hash_all(key)
        alive = await self._live_processes({e[3] for e in entries.values()}) | {PROCESS_ID}
        # `mine()` is asked after the last await: a join meanwhile is in it, and its own
        # write may land before or after these, both the same.
        wanted = {c: _entry(m, PROCESS_ID) for c, m in mine().items()}
        gone = [
            c for c, e in entries.items() if e[3] not in alive or (e[3] == PROCESS_ID and c not in wanted)
        ]
        missing = {c: e for c, e in wanted.items() if entries.get(c) != e}
        await self.store.hash_delete(key, gone)
        await self.store.hash_set(key, missing)
        return bool(gone or missing)

    async def _live_entries(self, room_id: int) -> list[list]:
        entries = await self.store.hash_all(f"online:{room_id}")
        alive = await self._live_processes({e[3] for e in entries.values()})
        return [e for e in entries.values() if e[3] in alive]

    async def online_carriers(self, room_id: int) -> list[tuple[Member, list[str]]]:
        """The room's connected members, ordered as `online_members` orders them, each
        with the carriers it is connected by (the label that leads each connection id)."""
        entries = await self.store.hash_all(f"online:{room_id}")
        alive = await self._live_processes({e[3] for e in entries.values()})
        found: dict[str, tuple[Member, set[str]]] = {}
        for connection_id, (member_id, name, role, process) in entries.items():
            if process in alive:
                _member, labels = found.setdefault(member_id, (Member(member_id, name, role), set()))
                labels.add(connection_id.split("-", 1)[0])
        ordered = sorted(found.values(), key=lambda pair: (pair[0].name.casefold(), pair[0].member_id))
        return [(member, sorted(labels)) for member, labels in ordered]

    async def online_members(self, room_id: int) -> list[Member]:
        """The room's connected members, one per member (not per connection), by name."""
        members: dict[str, Member] = {}
        for member_id, name, role, _process in await self._live_entries(room_id):
            members.setdefault(member_id, Member(member_id, name, role))
        return sorted(members.values(), key=lambda m: (m.name.casefold(), m.member_id))

    # --- wrong keys ---------------------------------------------------------------------

    async def join_refused(self, source: str) -> float:
        """Count a wrong key from `source` (shared by every process) and return how many
        seconds its answer must wait. Only failures count, so a member with the right
        key is never slowed by others guessing from the same address."""
        return bad_key_delay(await self.store.incr(f"badkey:{source}", ttl=BAD_KEY_WINDOW))

    # --- rate limits ----------------------------------------------------------------------

    async def take_tokens(self, buckets: list[str], *, burst: int, refill_seconds: float) -> bool:
        """Take one token from every named bucket, or from none if any is empty.

        Token buckets hold `burst` tokens and regain one every `refill_seconds`. Taking
        all-or-nothing means a refused input costs nothing ("a limited input leaves no
        trace"). A refill of 0 turns the limit off.
        """
        if refill_seconds <= 0:
            return True
        ttl = int(burst * refill_seconds) + 60
        return await self.store.take_tokens([f"bucket:{b}" for b in buckets], burst, refill_seconds, ttl)

    # --- the room turn queue ----------------------------------------------------------------

    async def _serving(self, room_id: int) -> dict:
        key = f"turn:{room_id}:serving"
        state = await self.store.get(key)
        if state is None:
            await self.store.add(key, {"ticket": 1, "since": await self.store.now()}, None)
            state = await self.store.get(key)
        return state

    async def _serve_next(self, room_id: int, ticket: int) -> None:
        serving = {"ticket": ticket + 1, "since": await self.store.now()}
        await self.store.set(f"turn:{room_id}:serving", serving, None)

    async def _ticket_dead(self, room_id: int, serving: dict) -> bool:
        """Whether the ticket being served will never run or never finish: its process
        died (or its lease lapsed), its waiter gave up, or nobody owns it because the
        store lost its data after it was drawn."""
        ticket = serving["ticket"]
        lease = await self.store.get(f"turn:{room_id}:lease")
        if lease is not None and lease.get("ticket") == ticket:
            return not await self._alive(lease.get("process", ""))
        owner = await self.store.get(f"turn:{room_id}:owner:{ticket}")
        if owner == GAVE_UP:
            return True
        if owner is not None and not await self._alive(owner):
            return True
        # How long it has been served, on the store's clock (that `since` is on).
        waited = await self.store.now() - serving["since"]
        return waited > (TURN_OWNER_GRACE if owner is None else TURN_CLAIM_GRACE)

    async def _draw_ticket(self, room_id: int) -> int:
        return await self.store.draw_ticket(room_id, PROCESS_ID)

    @asynccontextmanager
    async def room_turn(
        self, room_id: int, actor: str, on_queued: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[None]:
        """Run the body as the room's only turn, across every process, in arrival order.

        Tickets are served FIFO. Each ticket names the process that drew it, and the
        holder keeps a lease alive while it runs; a ticket whose process died is
        skipped as soon as the process's heartbeat lapses (PROCESS_TTL), so a killed
        server never wedges a table. `on_queued` is awaited once if this turn had to
        wait behind another. Claiming and releasing are one atomic step of the store
        each; the room's mutex is taken only to skip a dead ticket. When the next
        ticket waits in this process, the release hands it the turn in the same step
        (its lease written with the release), and it starts without a claim: a busy
        room's inputs, queued here, cost one round trip to Redis fewer each. Releasing
        never raises: the body's outcome (a committed line) must not be reported as a
        failure because the store was unreachable at the end.
        """
        lease_key = f"turn:{room_id}:lease"
        ticket = await self._draw_ticket(room_id)
        try:
            lease = await self._wait_for_turn(room_id, ticket, actor, on_queued)
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.set(f"turn:{room_id}:owner:{ticket}", GAVE_UP, 60))
            raise
        ticket = lease["ticket"]
        local = self._local(room_id)
        self._held_leases[room_id] = lease
        self._holding.add(local)
        renewing = LeaseRenewal(self.store, lease_key, lease)
        try:
            yield
        finally:
            renewing.stop()
            self._held_leases.pop(room_id, None)
            following = self._following(room_id, ticket)
            handed = None
            try:
                handed = await self._release(room_id, ticket, following)
            except Exception as exc:
                # Retried in the background until the store answers (a restarted Redis
                # fails the first call on each stale connection); at worst the lease
                # lapses and the queue moves on by itself.
                log.warning("turn queue room=%s could not release ticket %s: %r", room_id, ticket, exc)
                self._in_background(self._release_later(room_id, lease))
            self._holding.discard(local)
            if handed is not None:
                self._hand_over(room_id, handed)
            else:
                await self._freed(room_id)

    def _following(self, room_id: int, ticket: int) -> dict | None:
        """The lease for the ticket after `ticket` when it waits here: the turn is handed
        to it with the release, in the same step of the store, saving its claim."""
        waiters = self._waiters.get(self._local(room_id))
        waiter = waiters.get(ticket + 1) if waiters else None
        if waiter is None or waiter.handed is not None:
            return None
        return {"ticket": ticket + 1, "actor": waiter.actor, "process": PROCESS_ID, "id": os.urandom(6).hex()}

    def _hand_over(self, room_id: int, lease: dict) -> None:
        """Give the turn the store handed to `lease`'s ticket to its waiter, or release
        it when the waiter left meanwhile."""
        waiters = self._waiters.get(self._local(room_id))
        waiter = waiters.get(lease["ticket"]) if waiters else None
        if waiter is None:
            self._in_background(self._release_handed(room_id, lease))
            return
        waiter.handed = lease
        waiter.woken.set()

    async def _release_handed(self, room_id: int, lease: dict) -> None:
        """Release a turn handed to a waiter that left before it took it."""
        try:
            await self._release(room_id, lease["ticket"], None)
        except Exception:
            await self._release_later(room_id, lease)
            return
        await self._freed(room_id)

    async def _freed(self, room_id: int) -> None:
        """A turn of the room ended and nobody here was handed the next: the first
        waiter here looks, and the other processes are told."""
        self._wake_first_waiter(room_id)
        if self.on_release is not None:
            with contextlib.suppress(Exception):  # the others' fallback looks find it
                await self.on_release(room_id)

    def _in_background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _release(self, room_id: int, ticket: int, following: dict | None) -> dict | None:
        """End `ticket`'s turn; the lease `following` when the store handed it the turn."""
        failpoints.hit("turn.release")
        delay = 0.001
        while (released := await self.store.release_turn(room_id, ticket, following)) is None:
            await asyncio.sleep(delay)  # a dead ticket is being skipped this moment
            delay = min(delay * 2, TURN_POLL_MAX)
        return following if released else None

    async def _release_later(self, room_id: int, lease: dict) -> None:
        """Release a finished turn whose release failed, once the store answers again,
        while its lease (this very one) still holds the room."""
        deadline, delay = time.monotonic() + TURN_LEASE_TTL, 0.05
        while time.monotonic() < deadline:
            await asyncio.sleep(delay)
            try:
                if await self.store.get(f"turn:{room_id}:lease") != lease:
                    return  # it lapsed, or the store lost it: the queue moves on by itself
                await self._release(room_id, lease["ticket"], None)
            except Exception:
                delay = min(delay * 2, 1.0)
                continue
            log.info("turn queue room=%s: ticket %s released late", room_id, lease["ticket"])
            await self._freed(room_id)
            return

    async def _wait_for_turn(
        self, room_id: int, ticket: int, actor: str, on_queued: Callable[[], Awaitable[None]] | None
    ) -> dict:
        """Wait until `ticket` (or the ticket it is re-drawn as) is served; claim it,
        unless the turn before handed it over (`Waiter.handed`)."""
        local = self._local(room_id)
        waiters = self._waiters.setdefault(local, {})
        waiter = waiters[ticket] = Waiter(actor)
        woken = waiter.woken
        notified = claimed = False
        delay = 0.002 if self.on_release is None else 0.05
        try:
            while True:
                woken.clear()
                if waiter.handed is not None:  # by the turn before, with its release
                    claimed = True
                    return waiter.handed
                if local in self._holding or min(waiters) < ticket:
                    # The turn is held here, or an earlier ticket here waits for it: a
                    # claim could only fail. Whoever is ahead wakes this one in turn.
                    if not notified and on_queued is not None:
                        notified = True
                        await on_queued()
                    await woken.wait()
                    continue
                # `id` tells this turn's lease from a later one of the same number (a
                # store that lost its data counts tickets from 1 again).
                lease = {"ticket": ticket, "actor": actor, "process": PROCESS_ID, "id": os.urandom(6).hex()}
                serving = await self.store.claim_turn(room_id, ticket, lease)
                if serving == ticket:
                    claimed = True
                    return lease
                if serving is not None and serving > ticket:
                    # Skipped as dead (this process stalled past the grace): queue again.
                    del waiters[ticket]
                    ticket = await self._draw_ticket(room_id)
                    waiters[ticket] = waiter
                    self._wake_first_waiter(room_id)  # someone here may be first now
                    continue
                # Only the first waiter here looks at the queue, and only while the turn
                # is another process's: a turn held here wakes it when it ends.
                watching = min(waiters) == ticket and local not in self._holding
                if watching and serving is not None:
                    if await self._skip_if_dead(room_id, ticket):
                        continue
                    if await self.store.get(f"turn:{room_id}:owner:{ticket}") is None:
                        # The store lost its data since this ticket was drawn: draw again.
                        del waiters[ticket]
                        ticket = await self._draw_ticket(room_id)
                        waiters[ticket] = waiter
                        self._wake_first_waiter(room_id)  # someone here may be first now
                        continue
                if not notified and on_queued is not None:
                    notified = True
                    await on_queued()
                if watching or serving is None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(woken.wait(), delay)
                    longest = TURN_POLL_MAX if self.on_release is None else TURN_POLL_MAX_ANNOUNCED
                    delay = min(delay * 2, longest)
                else:
                    await woken.wait()
        finally:
            waiters.pop(ticket, None)
            if not waiters:
                self._waiters.pop(local, None)
            if not claimed:  # the next one here takes over looking; a claimed turn wakes it at its end
                if waiter.handed is not None:  # handed the turn, and gone before it took it
                    self._in_background(self._release_handed(room_id, waiter.handed))
                self._wake_first_waiter(room_id)

    async def _skip_if_dead(self, room_id: int, ticket: int) -> bool:
        """Move the queue past the ticket being served if it will never run or finish
        (see `_ticket_dead`); whether it did."""
        serving = await self._serving(room_id)
        if serving["ticket"] >= ticket or not await self._ticket_dead(room_id, serving):
            return False
        async with self.mutex(f"turn:{room_id}"):
            serving = await self._serving(room_id)
            if serving["ticket"] >= ticket or not await self._ticket_dead(room_id, serving):
                return False
            log.warning("turn queue room=%s skipping dead ticket %s", room_id, serving["ticket"])
            dead = await self.store.get(f"turn:{room_id}:lease")
            await self._serve_next(room_id, serving["ticket"])
            if dead and dead.get("ticket") == serving["ticket"] and dead.get("busy"):
                self.cut_off[room_id] = dead.get("actor", "")
            return True

    # --- structured rounds' deadlines ------------------------------------------------------

    # One hash, a field per room with an open round: the game's record of the round and
    # its deadline on the store's clock. Every process reads it, so any live one closes a
    # round whose time is up, whichever process opened it (`loreweaver/wire/round_clock.py`).
    # It is written and cleared only by a holder of the room's turn.

    async def round_deadline_set(self, room_id: int, round_id: str, record: dict, seconds: float) -> None:
        """Keep the room's open round `round_id` (`record`) due in `seconds`, unless that
        round is kept already: its time counts from its first line."""
        kept = await self.round_deadline(room_id)
        if kept is None or kept["round"] != round_id:
            due = {"round": round_id, "deadline": await self.store.now() + seconds, "record": record}
            await self.store.hash_set("rounds", {str(room_id): due})

    async def round_deadline(self, room_id: int) -> dict | None:
        """The room's kept round (`round`, `deadline`, `record`), None when none is open."""
        return (await self.store.hash_all("rounds")).get(str(room_id))

    async def round_deadline_clear(self, room_id: int) -> None:
        """Forget the room's round: answered, or closed by its time."""
        await self.store.hash_delete("rounds", [str(room_id)])

    async def rounds_due(self) -> dict[int, dict]:
        """The kept rounds whose deadline has passed, by room."""
        kept, now = await self.store.hash_all("rounds"), await self.store.now()
        return {int(room): due for room, due in kept.items() if due["deadline"] <= now}

    @asynccontextmanager
    async def closing_round(self, room_id: int, ttl: float) -> AsyncIterator[bool]:
        """Take the room's round-closing lock, if no process holds it: whether this one
        closes the round (the others leave it be). It lapses after `ttl` seconds, so a
        closer that died leaves the round to the next look."""
        key, token = f"round:{room_id}:closing", uuid.uuid4().hex
        mine = await self.store.lock(key, token, ttl)
        try:
            yield mine
        finally:
            if mine:
                await self.store.unlock(key, token)

    async def mark_busy(self, room_id: int) -> None:
        """Mark the turn this process holds in the room as a Keeper turn, so members
        joining meanwhile are told the table is busy."""
        lease = self._held_leases.get(room_id)
        if lease is not None and not lease.get("busy"):
            lease["busy"] = True
            await self.store.set(f"turn:{room_id}:lease", lease, TURN_LEASE_TTL)

    async def busy_actor(self, room_id: int) -> str | None:
        """Whose Keeper turn is running in the room, if one is (a joiner is told `busy`).

        Command turns and plain lines are too short to announce; the Keeper's branch
        marks its lease busy when it starts.
        """
        lease = await self.store.get(f"turn:{room_id}:lease")
        return lease.get("actor") if lease and lease.get("busy") else None
