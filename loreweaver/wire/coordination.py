"""State that every server process must agree on: presence, rate limits, the turn queue.

It lives in the cache, never in a module global: Redis when REDIS_URL is set (every
daphne worker and the Iroh sidecar see the same keys), the local-memory cache in the
embedded single-process profile. The logic is written once over a small key-value
store (`_Store`) with two implementations; read-modify-write steps take a short
mutex built on the store's atomic `add` (SET NX on Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

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
TURN_LEASE_TTL = 15
# A ticket at the head of the queue whose process is alive must claim its turn within
# this many seconds, else the queue moves on (its waiter is gone).
TURN_CLAIM_GRACE = 10.0
# A ticket at the head of the queue that nobody owns (the store lost its data since it
# was drawn) is skipped after this long; owners are recorded right after the draw.
TURN_OWNER_GRACE = 2.0
# How long a drawn ticket's owner is remembered (a wait in the queue is far shorter).
TURN_OWNER_TTL = 3600
GAVE_UP = "gave-up"
# The longest a waiter on another process sleeps between two looks at the queue.
TURN_POLL_MAX = 0.02

# Wrong keys from one source (an IP address, an Iroh endpoint): the first
# TRPG_RATE__BAD_KEYS_FREE are answered at once (typos), then each waits twice as long
# as the one before, up to a cap; a source is forgiven once it has sent no wrong key
# for the window.
BAD_KEY_FIRST_DELAY = 0.5
BAD_KEY_MAX_DELAY = 8.0
BAD_KEY_WINDOW = 600


def bad_key_delay(failures: int) -> float:
    """How long the answer to a source's `failures`-th wrong key waits."""
    free = settings.TRPG_RATE_BAD_KEYS_FREE
    if failures <= free:
        return 0.0
    return min(BAD_KEY_FIRST_DELAY * 2 ** (failures - free - 1), BAD_KEY_MAX_DELAY)


class _Store:
    """The few atomic operations the coordination logic needs."""

    async def get(self, key: str) -> Any: ...
    async def get_many(self, keys: list[str]) -> dict[str, Any]: ...
    async def set(self, key: str, value: Any, ttl: int | None) -> None: ...
    async def add(self, key: str, value: Any, ttl: int | None) -> bool: ...
    async def delete(self, key: str) -> None: ...
    async def incr(self, key: str, ttl: int | None = None) -> int: ...


class _LocalStore(_Store):
    """The local-memory cache, called directly: one process, no thread hop needed."""

    async def get(self, key: str) -> Any:
        return cache.get(key)

    async def get_many(self, keys: list[str]) -> dict[str, Any]:
        return cache.get_many(keys)

    async def set(self, key: str, value: Any, ttl: int | None) -> None:
        cache.set(key, value, ttl)

    async def add(self, key: str, value: Any, ttl: int | None) -> bool:
        return cache.add(key, value, ttl)

    async def delete(self, key: str) -> None:
        cache.delete(key)

    async def incr(self, key: str, ttl: int | None = None) -> int:
        cache.add(key, 0, ttl)
        value = cache.incr(key)
        if ttl is not None:
            cache.touch(key, ttl)
        return value


class _RedisStore(_Store):
    """Redis through its asyncio client, one connection pool per event loop."""

    def __init__(self, url: str, prefix: str) -> None:
        self._url = url
        self._prefix = f"{prefix}:coord:"
        self._clients: dict[int, Any] = {}

    def _client(self) -> Any:
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        client = self._clients.get(id(loop))
        if client is None:
            client = aioredis.from_url(self._url)
            self._clients[id(loop)] = client
        return client

    async def get(self, key: str) -> Any:
        raw = await self._client().get(self._prefix + key)
        return None if raw is None else json.loads(raw)

    async def get_many(self, keys: list[str]) -> dict[str, Any]:
        if not keys:
            return {}
        raws = await self._client().mget([self._prefix + k for k in keys])
        return {k: json.loads(r) for k, r in zip(keys, raws, strict=True) if r is not None}

    async def set(self, key: str, value: Any, ttl: int | None) -> None:
        await self._client().set(self._prefix + key, json.dumps(value), ex=ttl)

    async def add(self, key: str, value: Any, ttl: int | None) -> bool:
        return bool(await self._client().set(self._prefix + key, json.dumps(value), ex=ttl, nx=True))

    async def delete(self, key: str) -> None:
        await self._client().delete(self._prefix + key)

    async def incr(self, key: str, ttl: int | None = None) -> int:
        if ttl is None:
            return int(await self._client().incr(self._prefix + key))
        async with self._client().pipeline(transaction=True) as pipe:
            value, _ = await pipe.incr(self._prefix + key).expire(self._prefix + key, ttl).execute()
        return int(value)

    async def close(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


_shared: Coordination | None = None


def shared() -> Coordination:
    """The coordination of the configured profile (Redis, or this process's cache)."""
    global _shared
    if _shared is None:
        if settings.REDIS_URL:
            _shared = Coordination(_RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX))
        else:
            _shared = Coordination(_LocalStore())
    return _shared


@dataclass(frozen=True)
class Member:
    """A member currently connected to a room (on any process, any carrier)."""

    member_id: str
    name: str
    role: str


class Coordination:
    """Presence, rate limits, the turn queue and process liveness over one store."""

    def __init__(self, store: _Store) -> None:
        self.store = store
        # Wakes this process's waiters as soon as a turn here ends; waiters on other
        # processes notice by polling, with a short backoff.
        self._turn_ended: dict[tuple[int, int], asyncio.Event] = {}
        # The lease of each room whose turn this process holds (one turn per room).
        self._held_leases: dict[int, dict] = {}
        # When each process whose heartbeat is missing was first seen without one.
        self._absent_since: dict[str, float] = {}
        # Rooms where this process skipped a Keeper turn whose process died mid-turn
        # (room -> whose turn it was): the table should hear that it ended.
        self.cut_off: dict[int, str] = {}

    def _turn_ended_event(self, room_id: int) -> asyncio.Event:
        key = (id(asyncio.get_running_loop()), room_id)
        event = self._turn_ended.get(key)
        if event is None:
            event = self._turn_ended[key] = asyncio.Event()
        return event

    def _announce_turn_ended(self, room_id: int) -> None:
        key = (id(asyncio.get_running_loop()), room_id)
        event = self._turn_ended.pop(key, None)
        if event is not None:
            event.set()

    @asynccontextmanager
    async def mutex(self, name: str) -> AsyncIterator[None]:
        """Hold a short cross-process lock around a read-modify-write of shared keys.

        The lock expires by itself after MUTEX_TTL seconds, so a killed holder cannot
        wedge a room.
        """
        key = f"mutex:{name}"
        token = uuid.uuid4().hex
        delay = 0.0005
        while not await self.store.add(key, token, MUTEX_TTL):
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.005)
        try:
            yield
        finally:
            if await self.store.get(key) == token:
                await self.store.delete(key)

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

    async def presence_add(self, room_id: int, connection_id: str, member: Member) -> None:
        """Record one live connection of `member` in the room."""
        key = f"presence:{room_id}"
        async with self.mutex(key):
            entries = await self.store.get(key) or {}
            entries[connection_id] = [member.member_id, member.name, member.role, PROCESS_ID]
            await self.store.set(key, entries, None)

    async def presence_remove(self, room_id: int, connection_id: str) -> None:
        """Forget one connection; dead processes' entries are pruned on the way."""
        key = f"presence:{room_id}"
        async with self.mutex(key):
            entries = await self.store.get(key) or {}
            entries.pop(connection_id, None)
            alive = await self._live_processes({e[3] for e in entries.values()})
            entries = {c: e for c, e in entries.items() if e[3] in alive}
            await self.store.set(key, entries, None)

    async def presence_sync(self, room_id: int, mine: Callable[[], dict[str, Member]]) -> bool:
        """Make this process's entries in the room exactly `mine()` (connection id ->
        member) and drop the entries of dead processes. Returns whether anything
        changed (then the room's members should hear of it).

        Puts presence back after the store lost it, takes out what a failed teardown
        left, and ends a killed process's ghosts. A plain read when all is well.
        `mine` is asked again under the mutex, so a join meanwhile is not undone.
        """
        key = f"presence:{room_id}"

        async def fixed() -> tuple[dict, dict]:
            entries = await self.store.get(key) or {}
            alive = await self._live_processes({e[3] for e in entries.values()}) | {PROCESS_ID}
            kept = {c: e for c, e in entries.items() if e[3] != PROCESS_ID and e[3] in alive}
            kept.update({c: [m.member_id, m.name, m.role, PROCESS_ID] for c, m in mine().items()})
            return entries, kept

        entries, wanted = await fixed()
        if wanted == entries:
            return False
        async with self.mutex(key):
            entries, wanted = await fixed()
            if wanted == entries:
                return False
            await self.store.set(key, wanted, None)
            return True

    async def _live_entries(self, room_id: int) -> list[list]:
        entries = await self.store.get(f"presence:{room_id}") or {}
        alive = await self._live_processes({e[3] for e in entries.values()})
        return [e for e in entries.values() if e[3] in alive]

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
        async with self.mutex("bucket:" + buckets[0]):
            now = time.time()
            stored = await self.store.get_many([f"bucket:{b}" for b in buckets])
            levels = {}
            for bucket in buckets:
                tokens, updated = stored.get(f"bucket:{bucket}", (burst, now))
                levels[bucket] = min(burst, tokens + (now - updated) / refill_seconds)
            if any(level < 1 for level in levels.values()):
                return False
            for bucket, level in levels.items():
                await self.store.set(f"bucket:{bucket}", (level - 1, now), ttl)
            return True

    # --- the room turn queue ----------------------------------------------------------------

    async def _serving(self, room_id: int) -> dict:
        key = f"turn:{room_id}:serving"
        state = await self.store.get(key)
        if state is None:
            await self.store.add(key, {"ticket": 1, "since": time.time()}, None)
            state = await self.store.get(key)
        return state

    async def _serve_next(self, room_id: int, ticket: int) -> None:
        await self.store.set(f"turn:{room_id}:serving", {"ticket": ticket + 1, "since": time.time()}, None)

    async def _ticket_dead(self, room_id: int, serving: dict) -> bool:
        """Whether the ticket being served will never run or never finish: its process
        died (or its lease lapsed), its waiter gave up, or nobody owns it because the
        store lost its data after it was drawn."""
        ticket, waited = serving["ticket"], time.time() - serving["since"]
        lease = await self.store.get(f"turn:{room_id}:lease")
        if lease is not None and lease.get("ticket") == ticket:
            return not await self._alive(lease.get("process", ""))
        owner = await self.store.get(f"turn:{room_id}:owner:{ticket}")
        if owner == GAVE_UP:
            return True
        if owner is None:
            return waited > TURN_OWNER_GRACE
        if not await self._alive(owner):
            return True
        return waited > TURN_CLAIM_GRACE

    async def _draw_ticket(self, room_id: int) -> int:
        ticket = await self.store.incr(f"turn:{room_id}:next")
        await self.store.set(f"turn:{room_id}:owner:{ticket}", PROCESS_ID, TURN_OWNER_TTL)
        return ticket

    @asynccontextmanager
    async def room_turn(
        self, room_id: int, actor: str, on_queued: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[None]:
        """Run the body as the room's only turn, across every process, in arrival order.

        Tickets are served FIFO. Each ticket names the process that drew it, and the
        holder keeps a lease alive while it runs; a ticket whose process died is
        skipped as soon as the process's heartbeat lapses (PROCESS_TTL), so a killed
        server never wedges a table. `on_queued` is awaited once if this turn had to
        wait behind another. Waiting is a plain read of the queue; the room's mutex is
        taken only to claim the turn or to skip a dead one. Releasing never raises:
        the body's outcome (a committed line) must not be reported as a failure
        because the store was unreachable at the end.
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

        async def keep_lease() -> None:
            while True:
                await asyncio.sleep(TURN_LEASE_TTL / 3)
                with contextlib.suppress(Exception):  # a store blip: the next renewal retries
                    await self.store.set(lease_key, lease, TURN_LEASE_TTL)

        self._held_leases[room_id] = lease
        renewing = asyncio.create_task(keep_lease())
        try:
            yield
        finally:
            renewing.cancel()
            self._held_leases.pop(room_id, None)
            try:
                async with self.mutex(f"turn:{room_id}"):
                    if (await self._serving(room_id))["ticket"] == ticket:
                        await self._serve_next(room_id, ticket)
                    lease_now = await self.store.get(lease_key)
                    if lease_now is not None and lease_now.get("ticket") == ticket:
                        await self.store.delete(lease_key)
                    await self.store.delete(f"turn:{room_id}:owner:{ticket}")
            except Exception as exc:
                # The lease lapses and the queue moves on by itself once the store is back.
                log.warning("turn queue room=%s could not release ticket %s: %r", room_id, ticket, exc)
            self._announce_turn_ended(room_id)

    async def _wait_for_turn(
        self, room_id: int, ticket: int, actor: str, on_queued: Callable[[], Awaitable[None]] | None
    ) -> dict:
        """Wait until `ticket` (or the ticket it is re-drawn as) is served; claim it."""
        notified = False
        delay = 0.002
        while True:
            serving = await self._serving(room_id)
            if serving["ticket"] > ticket:
                # Skipped as dead (this process stalled past the grace): queue again.
                ticket = await self._draw_ticket(room_id)
                continue
            if serving["ticket"] == ticket or await self._ticket_dead(room_id, serving):
                async with self.mutex(f"turn:{room_id}"):
                    serving = await self._serving(room_id)
                    if serving["ticket"] == ticket:
                        lease = {"ticket": ticket, "actor": actor, "process": PROCESS_ID}
                        await self.store.set(f"turn:{room_id}:lease", lease, TURN_LEASE_TTL)
                        return lease
                    if serving["ticket"] < ticket and await self._ticket_dead(room_id, serving):
                        log.warning("turn queue room=%s skipping dead ticket %s", room_id, serving["ticket"])
                        dead = await self.store.get(f"turn:{room_id}:lease")
                        await self._serve_next(room_id, serving["ticket"])
                        if dead and dead.get("ticket") == serving["ticket"] and dead.get("busy"):
                            self.cut_off[room_id] = dead.get("actor", "")
                        continue
            if await self.store.get(f"turn:{room_id}:owner:{ticket}") is None:
                # The store lost its data since this ticket was drawn: draw again.
                ticket = await self._draw_ticket(room_id)
                continue
            if not notified and on_queued is not None:
                notified = True
                await on_queued()
            ended = self._turn_ended_event(room_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), delay)
            delay = min(delay * 2, TURN_POLL_MAX)

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


def online_now(room_ids: list[int]) -> dict[int, list[Member]]:
    """Who is online in each room, read synchronously (for the admin)."""
    from asgiref.sync import async_to_sync

    async def read() -> dict[int, list[Member]]:
        # A short-lived store on this call's own event loop; the shared one belongs to
        # the server's loop.
        store = (
            _RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX) if settings.REDIS_URL else _LocalStore()
        )
        coordination = Coordination(store)
        try:
            return {room_id: await coordination.online_members(room_id) for room_id in room_ids}
        finally:
            if isinstance(store, _RedisStore):
                await store.close()

    return async_to_sync(read)()


def online_counts(room_ids: list[int]) -> dict[int, int]:
    """How many members are online in each room, read synchronously (for the admin)."""
    return {room_id: len(members) for room_id, members in online_now(room_ids).items()}
