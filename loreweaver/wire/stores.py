"""The key-value stores under `coordination`: this process's memory (one process) and
Redis (every process of a hosted table).

Besides plain reads and writes, a store offers the compound steps on every input's path
(a rate-limit take, drawing, claiming and releasing a turn) as single atomic operations:
under one hold of the lock for the local store, and as Lua scripts on Redis, one round
trip each. Two rules keep the Redis
store right when processes disagree or stall:

- Times that several processes compare (a bucket's last refill, when a ticket began to
  be served) are the store's clock (`now`, Redis's `TIME`, read inside the scripts),
  never a process's own, so a process whose clock is off neither refills a bucket
  early nor starves it.
- A lock is released only by the holder whose token it still holds, in one step (a
  Lua compare-and-delete), so a holder that outlived its lock cannot delete the next
  holder's.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import weakref
from typing import Any

from loreweaver.wire.redis_pipe import RedisPipe

TURN_LEASE_TTL = 15
# How long a drawn ticket's owner is remembered (a wait in the queue is far shorter).
TURN_OWNER_TTL = 3600


class Store:
    """The few atomic operations the coordination logic needs.

    The compound operations (a rate-limit take, drawing, claiming and releasing a turn)
    are one atomic step of each store: under the local store's lock, as a Lua script on
    Redis. A compound operation on the turn queue refuses (None) while the queue's
    mutex is held by the slow path that skips dead tickets.
    """

    async def get(self, key: str) -> Any: ...
    async def get_many(self, keys: list[str]) -> dict[str, Any]: ...
    async def set(self, key: str, value: Any, ttl: int | None) -> None: ...
    async def add(self, key: str, value: Any, ttl: int | None) -> bool: ...
    async def delete(self, key: str) -> None: ...
    async def incr(self, key: str, ttl: int | None = None) -> int: ...
    async def hash_set(self, key: str, values: dict[str, Any]) -> None: ...
    async def hash_delete(self, key: str, fields: list[str]) -> None: ...
    async def hash_all(self, key: str) -> dict[str, Any]: ...

    async def now(self) -> float:
        """The store's clock, in seconds: the one every process compares times on."""
        return time.time()

    async def lock(self, key: str, token: str, ttl: float) -> bool:
        """Take the lock at `key` as `token` for `ttl` seconds, if nobody holds it."""
        ...

    async def unlock(self, key: str, token: str) -> bool:
        """Release the lock at `key` if `token` still holds it (one atomic step);
        whether it did. A lock that expired and was taken by another stays theirs."""
        ...

    async def take_tokens(self, keys: list[str], burst: int, refill_seconds: float, ttl: int) -> bool:
        """Take one token from every bucket at `keys`, or from none if any is empty."""
        ...

    async def draw_ticket(self, room_id: int, owner: str) -> int:
        """The room's next ticket, recorded as `owner`'s."""
        ...

    async def claim_turn(self, room_id: int, ticket: int, lease: dict) -> int | None:
        """Take the room's turn with `lease` if `ticket` is being served. Returns the
        ticket being served (equal to `ticket` when claimed), None while locked."""
        ...

    async def release_turn(self, room_id: int, ticket: int, following: dict | None = None) -> bool | None:
        """End the turn of `ticket`: serve the next, drop its lease and owner; and hand the
        turn to `following`, the next ticket's lease, when that ticket is the one served
        now and still its process's. Whether it was handed; None (nothing done) while
        locked."""
        ...


class ProcessMemory:
    """Keys to values, each with an optional expiry, in this process's memory: what the
    local store keeps, shared by every `LocalStore` of the process (the admin's reads
    run on threads and loops of their own), each step under one lock.

    Django's local-memory cache did this before, pickling each value both ways: about
    a microsecond a step, some fifteen steps an input (`bench/fanout.py`, embedded: 6 %
    of a story line's server CPU). Values are kept as given; a dict or list is copied
    on the way in and out, as the pickling did, so a caller that changes what it read
    (a held lease) changes nothing stored, and a reader on another thread (the admin's)
    never has a dict change under it.

    A key that expires is forgotten even if nobody reads it again (a stranger's wrong-key
    count, `badkey:<source>`, is never read once the stranger is gone): whenever the
    keys have doubled since the last sweep, the expired ones are swept out, so what
    strangers leave behind is bounded by what is alive, at a constant cost per write.
    """

    # The fewest keys at which a sweep is worth it.
    SWEEP_FROM = 1024

    def __init__(self) -> None:
        # Reentrant: a compound step (take a lock, read a hash and write it back) holds
        # it across the plain ones.
        self.lock = threading.RLock()
        self._entries: dict[str, tuple[Any, float | None]] = {}
        self._sweep_at = self.SWEEP_FROM

    def __len__(self) -> int:
        """How many keys are kept, the expired ones not yet swept out included."""
        return len(self._entries)

    def get(self, key: str) -> Any:
        """The value at `key`, or None when there is none (or it expired)."""
        with self.lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            value, expires = entry
            if expires is not None and expires <= time.monotonic():
                del self._entries[key]
                return None
            return _copied(value)

    def set(self, key: str, value: Any, ttl: float | None) -> None:
        """Keep `value` at `key`, for `ttl` seconds (None: until deleted)."""
        with self.lock:
            self._entries[key] = (_copied(value), None if ttl is None else time.monotonic() + ttl)
            if len(self._entries) >= self._sweep_at:
                self._sweep()

    def _sweep(self) -> None:
        now = time.monotonic()
        for key in [k for k, (_, expires) in self._entries.items() if expires is not None and expires <= now]:
            del self._entries[key]
        self._sweep_at = max(self.SWEEP_FROM, 2 * len(self._entries))

    def add(self, key: str, value: Any, ttl: float | None) -> bool:
        """Keep `value` at `key` unless a value is there; whether it did."""
        with self.lock:
            if self.get(key) is not None:
                return False
            self.set(key, value, ttl)
            return True

    def delete(self, key: str) -> None:
        """Forget `key`."""
        with self.lock:
            self._entries.pop(key, None)

    def incr(self, key: str, ttl: float | None) -> int:
        """Add one to the number at `key` (0 when there is none); kept for `ttl` seconds
        from now (None: until deleted)."""
        with self.lock:
            value = (self.get(key) or 0) + 1
            self.set(key, value, ttl)
            return value


def _copied(value: Any) -> Any:
    kind = type(value)
    return kind(value) if kind is dict or kind is list else value


_MEMORY = ProcessMemory()


class LocalStore(Store):
    """This process's memory (`ProcessMemory`), called directly: one process, no thread
    hop needed. Its clock is this process's, the only one that uses it."""

    def __init__(self) -> None:
        self.memory = _MEMORY

    async def lock(self, key: str, token: str, ttl: float) -> bool:
        return self.memory.add(key, token, ttl)

    async def unlock(self, key: str, token: str) -> bool:
        # The compare and the delete under one hold of the lock, so nobody can take the
        # lock between them, from any thread of the process.
        with self.memory.lock:
            if self.memory.get(key) != token:
                return False
            self.memory.delete(key)
            return True

    async def get(self, key: str) -> Any:
        return self.memory.get(key)

    async def get_many(self, keys: list[str]) -> dict[str, Any]:
        found = {key: self.memory.get(key) for key in keys}
        return {key: value for key, value in found.items() if value is not None}

    async def set(self, key: str, value: Any, ttl: int | None) -> None:
        self.memory.set(key, value, ttl)

    async def add(self, key: str, value: Any, ttl: int | None) -> bool:
        return self.memory.add(key, value, ttl)

    async def delete(self, key: str) -> None:
        self.memory.delete(key)

    async def incr(self, key: str, ttl: int | None = None) -> int:
        return self.memory.incr(key, ttl)

    # A hash is a dict under one key: each change below is a read and a write under one
    # hold of the lock, so nothing else can change it meanwhile.
    async def hash_set(self, key: str, values: dict[str, Any]) -> None:
        if values:
            with self.memory.lock:
                self.memory.set(key, {**(self.memory.get(key) or {}), **values}, None)

    async def hash_delete(self, key: str, fields: list[str]) -> None:
        if not fields:
            return
        with self.memory.lock:
            entries = self.memory.get(key) or {}
            for field in fields:
                entries.pop(field, None)
            self.memory.set(key, entries, None)

    async def hash_all(self, key: str) -> dict[str, Any]:
        return self.memory.get(key) or {}

    # The compound steps: each under one hold of the lock, so no other thread of the
    # process (the admin's loops) sees one half done. Plain calls, as Redis's scripts
    # are one round trip: a step of every input, it cost a coroutine per key it touched.
    async def take_tokens(self, keys: list[str], burst: int, refill_seconds: float, ttl: int) -> bool:
        memory, now = self.memory, time.time()
        with memory.lock:
            levels = {}
            for key in keys:
                tokens, updated = memory.get(key) or (burst, now)
                levels[key] = min(burst, tokens + (now - updated) / refill_seconds)
            if any(level < 1 for level in levels.values()):
                return False
            for key, level in levels.items():
                memory.set(key, (level - 1, now), ttl)
        return True

    async def draw_ticket(self, room_id: int, owner: str) -> int:
        memory = self.memory
        with memory.lock:
            ticket = memory.incr(f"turn:{room_id}:next", None)
            memory.set(f"turn:{room_id}:owner:{ticket}", owner, TURN_OWNER_TTL)
        return ticket

    async def claim_turn(self, room_id: int, ticket: int, lease: dict) -> int | None:
        memory, key = self.memory, f"turn:{room_id}:serving"
        with memory.lock:
            if memory.get(f"mutex:turn:{room_id}") is not None:
                return None
            serving = memory.get(key)
            if serving is None:
                serving = {"ticket": 1, "since": time.time()}
                memory.set(key, serving, None)
            if serving["ticket"] == ticket:
                memory.set(f"turn:{room_id}:lease", lease, TURN_LEASE_TTL)
        return serving["ticket"]

    async def release_turn(self, room_id: int, ticket: int, following: dict | None = None) -> bool | None:
        memory, key, lease_key = self.memory, f"turn:{room_id}:serving", f"turn:{room_id}:lease"
        with memory.lock:
            if memory.get(f"mutex:turn:{room_id}") is not None:
                return None
            serving = memory.get(key)
            advanced = serving is not None and serving["ticket"] == ticket
            if advanced:
                memory.set(key, {"ticket": ticket + 1, "since": time.time()}, None)
            lease = memory.get(lease_key)
            if lease is not None and lease.get("ticket") == ticket:
                memory.delete(lease_key)
            memory.delete(f"turn:{room_id}:owner:{ticket}")
            if not (advanced and following and following["ticket"] == ticket + 1):
                return False
            if memory.get(f"turn:{room_id}:owner:{ticket + 1}") != following["process"]:
                return False
            memory.set(lease_key, following, TURN_LEASE_TTL)
        return True


# Values are JSON, as `RedisStore` writes them. Times are Redis's own clock (`now()`,
# from `TIME`, in seconds; defined in every script): every process reads the same one.
_NOW = """
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""
_TAKE_TOKENS = """
local burst, refill, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local now = now()
local levels = {}
for i, key in ipairs(KEYS) do
  local tokens, updated = burst, now
  local raw = redis.call('GET', key)
  if raw then
    local stored = cjson.decode(raw)
    tokens, updated = stored[1], stored[2]
  end
  levels[i] = math.min(burst, tokens + (now - updated) / refill)
  if levels[i] < 1 then return 0 end
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, cjson.encode({levels[i] - 1, now}), 'EX', ttl)
end
return 1
"""
_DRAW_TICKET = """
local ticket = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2] .. ticket, ARGV[1], 'EX', ARGV[2])
return ticket
"""
# KEYS: mutex, serving, lease. ARGV: ticket, lease JSON, lease ttl.
_CLAIM_TURN = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local raw = redis.call('GET', KEYS[2])
local serving = 1
if raw then
  serving = cjson.decode(raw)['ticket']
else
  redis.call('SET', KEYS[2], cjson.encode({ticket = 1, since = now()}))
end
if serving == tonumber(ARGV[1]) then
  redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[3])
end
return serving
"""
# KEYS: mutex, serving, lease, owner, the next ticket's owner. ARGV: ticket, and to hand
# the turn over: the next ticket's lease (JSON), its ttl, its process (JSON, as owners
# are written). Returns 0 while locked, 1 when released, 2 when handed over too.
_RELEASE_TURN = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local ticket = tonumber(ARGV[1])
local raw = redis.call('GET', KEYS[2])
local advanced = raw and cjson.decode(raw)['ticket'] == ticket
if advanced then
  redis.call('SET', KEYS[2], cjson.encode({ticket = ticket + 1, since = now()}))
end
raw = redis.call('GET', KEYS[3])
if raw and cjson.decode(raw)['ticket'] == ticket then redis.call('DEL', KEYS[3]) end
redis.call('DEL', KEYS[4])
if advanced and ARGV[2] and redis.call('GET', KEYS[5]) == ARGV[4] then
  redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[3])
  return 2
end
return 1
"""
# KEYS: the counter. ARGV: its lifetime in seconds, from this count.
_INCR_EXPIRE = """
local value = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return value
"""
# KEYS: the lock. ARGV: the token (JSON, as written). Deletes only the holder's own lock.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_SCRIPTS = {
    name: _NOW + source
    for name, source in (
        ("take_tokens", _TAKE_TOKENS),
        ("draw_ticket", _DRAW_TICKET),
        ("claim_turn", _CLAIM_TURN),
        ("release_turn", _RELEASE_TURN),
        ("unlock", _UNLOCK),
        ("incr_expire", _INCR_EXPIRE),
    )
}


class RedisStore(Store):
    """Redis through a pipe (`redis_pipe.py`), one per event loop.

    A pipe belongs to the loop it was made on (its connection is that loop's), so it is
    kept by the loop object itself, weakly: never by `id(loop)`, which a later loop can
    reuse. A pipe's connection holds on to its loop, so the weak key alone would not
    let go of a closed loop's; those are dropped whenever a loop makes its pipe, and
    their sockets close as they are collected (a closed loop cannot run the pipe's own
    close).
    """

    def __init__(self, url: str, prefix: str) -> None:
        self._url = url
        self._prefix = f"{prefix}:coord:"
        self._pipe_name = f"{prefix}-turns-{os.getpid()}"  # as Redis's CLIENT LIST shows it
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RedisPipe] = (
            weakref.WeakKeyDictionary()
        )

    def _pipe(self) -> RedisPipe:
        """This loop's pipe, made on first use."""
        loop = asyncio.get_running_loop()
        pipe = self._per_loop.get(loop)
        if pipe is None:
            for closed in [other for other in list(self._per_loop) if other.is_closed()]:
                self._per_loop.pop(closed, None)
            pipe = self._per_loop[loop] = RedisPipe(self._url, self._pipe_name)
        return pipe

    async def _call(self, *args: Any) -> Any:
        return await self._pipe().call(*args)

    async def _run(self, script: str, keys: list[str], args: list[Any]) -> Any:
        """Run one of `_SCRIPTS`."""
        return await self._pipe().script(_SCRIPTS[script], keys, args)

    async def now(self) -> float:
        seconds, microseconds = await self._call("TIME")
        return int(seconds) + int(microseconds) / 1_000_000

    async def lock(self, key: str, token: str, ttl: float) -> bool:
        value = json.dumps(token)
        return await self._call("SET", self._prefix + key, value, "PX", int(ttl * 1000), "NX") is not None

    async def unlock(self, key: str, token: str) -> bool:
        return bool(await self._run("unlock", [self._prefix + key], [json.dumps(token)]))

    async def take_tokens(self, keys: list[str], burst: int, refill_seconds: float, ttl: int) -> bool:
        keys = [self._prefix + key for key in keys]
        return bool(await self._run("take_tokens", keys, [burst, refill_seconds, ttl]))

    async def draw_ticket(self, room_id: int, owner: str) -> int:
        keys = [f"{self._prefix}turn:{room_id}:next", f"{self._prefix}turn:{room_id}:owner:"]
        return int(await self._run("draw_ticket", keys, [json.dumps(owner), TURN_OWNER_TTL]))

    async def claim_turn(self, room_id: int, ticket: int, lease: dict) -> int | None:
        keys = [
            self._prefix + k
            for k in (f"mutex:turn:{room_id}", f"turn:{room_id}:serving", f"turn:{room_id}:lease")
        ]
        args = [ticket, json.dumps(lease), TURN_LEASE_TTL]
        serving = int(await self._run("claim_turn", keys, args))
        return None if serving < 0 else serving

    async def release_turn(self, room_id: int, ticket: int, following: dict | None = None) -> bool | None:
        keys = [
            self._prefix + k
            for k in (
                f"mutex:turn:{room_id}",
                f"turn:{room_id}:serving",
                f"turn:{room_id}:lease",
                f"turn:{room_id}:owner:{ticket}",
                f"turn:{room_id}:owner:{ticket + 1}",
            )
        ]
        args: list[Any] = [ticket]
        if following is not None and following["ticket"] == ticket + 1:
            args += [json.dumps(following), TURN_LEASE_TTL, json.dumps(following["process"])]
        released = int(await self._run("release_turn", keys, args))
        return None if released == 0 else released == 2

    async def get(self, key: str) -> Any:
        raw = await self._call("GET", self._prefix + key)
        return None if raw is None else json.loads(raw)

    async def get_many(self, keys: list[str]) -> dict[str, Any]:
        if not keys:
            return {}
        raws = await self._call("MGET", *(self._prefix + k for k in keys))
        return {k: json.loads(r) for k, r in zip(keys, raws, strict=True) if r is not None}

    async def set(self, key: str, value: Any, ttl: int | None) -> None:
        expiry = () if ttl is None else ("EX", ttl)
        await self._call("SET", self._prefix + key, json.dumps(value), *expiry)

    async def add(self, key: str, value: Any, ttl: int | None) -> bool:
        expiry = () if ttl is None else ("EX", ttl)
        return await self._call("SET", self._prefix + key, json.dumps(value), "NX", *expiry) is not None

    async def delete(self, key: str) -> None:
        await self._call("DEL", self._prefix + key)

    async def incr(self, key: str, ttl: int | None = None) -> int:
        if ttl is None:
            return int(await self._call("INCR", self._prefix + key))
        return int(await self._run("incr_expire", [self._prefix + key], [ttl]))

    async def hash_set(self, key: str, values: dict[str, Any]) -> None:
        if values:
            pairs = [part for field, value in values.items() for part in (field, json.dumps(value))]
            await self._call("HSET", self._prefix + key, *pairs)

    async def hash_delete(self, key: str, fields: list[str]) -> None:
        if fields:
            await self._call("HDEL", self._prefix + key, *fields)

    async def hash_all(self, key: str) -> dict[str, Any]:
        flat = await self._call("HGETALL", self._prefix + key)
        return {
            field.decode(): json.loads(value) for field, value in zip(flat[0::2], flat[1::2], strict=True)
        }

    async def close(self) -> None:
        """Close this loop's pipe (the others belong to their own loops)."""
        pipe = self._per_loop.pop(asyncio.get_running_loop(), None)
        if pipe is not None:
            pipe.close()
