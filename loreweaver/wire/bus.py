"""The room bus: how a room message reaches every process that serves the room.

`LocalHub` (hub.py) joins the bus for each room it has sessions in and hands what
arrives to them. Two buses:

- `LocalBus` (embedded, one process): a published message is handed to the room's
  sessions at once, in publishing order.
- `RedisBus` (hosted): one Redis PUBLISH per message; Redis hands it to every process
  subscribed to the room's channel, over one connection per process. Pub/sub keeps no
  queue: a process whose connection dropped has missed what was published meanwhile,
  so the bus reports the loss (`on_lost`) and the hub has its sessions catch up from
  the database once the bus has joined its rooms again (`rejoin`). What a turn
  publishes is committed first, so nothing but live-only frames (a draft's deltas, a
  busy marker) can be missed for good.

Messages are dicts of plain data (`hub.py` lists their types); on Redis they travel
as MessagePack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any, Protocol

import msgpack
from django.conf import settings

from loreweaver import metrics

log = logging.getLogger(__name__)

Deliver = Callable[[int, dict], None]

# How long joining a room waits for Redis to confirm the subscription, in all; the
# subscription is sent again (logged, counted) after each share of it.
SUBSCRIBE_TIMEOUT = 10.0
SUBSCRIBE_ATTEMPTS = 3


class Bus(Protocol):
    """What the hub needs from a bus (all on the server's event loop)."""

    async def join(self, room_id: int) -> None:
        """Receive the room's messages from the moment this returns."""

    async def leave(self, room_id: int) -> None:
        """Stop receiving the room's messages."""

    async def publish(self, room_id: int, message: dict) -> int:
        """Send `message` to every process in the room; how many processes it reached
        (this one included); raises when it could not."""

    async def rejoin(self) -> None:
        """After a loss: join every room again; raises while the bus is unreachable."""

    async def close(self) -> None:
        """Let go of connections."""


class LocalBus:
    """The bus of a single process: delivery is a function call."""

    def __init__(self, deliver: Deliver) -> None:
        self._deliver = deliver
        self._rooms: set[int] = set()

    async def join(self, room_id: int) -> None:
        self._rooms.add(room_id)

    async def leave(self, room_id: int) -> None:
        self._rooms.discard(room_id)

    async def publish(self, room_id: int, message: dict) -> int:
        if room_id in self._rooms:
            self._deliver(room_id, message)
            return 1
        return 0

    async def rejoin(self) -> None:
        return None

    async def close(self) -> None:
        return None


def _redis_client() -> Any:
    """A client of the hosted Redis that fails instead of retrying behind our back: a
    reconnect the bus does not see would hide the messages lost in between. Its
    connections are named after the process (`CLIENT LIST` shows whose they are)."""
    import redis.asyncio as aioredis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return aioredis.from_url(
        settings.REDIS_URL,
        retry=Retry(NoBackoff(), 0),
        socket_keepalive=True,
        client_name=client_name(),
    )


def client_name(pid: int | None = None) -> str:
    """The name of the bus connections of process `pid` (this one by default)."""
    return f"{settings.REDIS_PREFIX}-bus-{pid or os.getpid()}"


def _channel(room_id: int) -> bytes:
    return f"{settings.REDIS_PREFIX}:room:{room_id}".encode()


def _room_of(channel: bytes) -> int:
    return int(channel.rsplit(b":", 1)[1])


class RedisBus:
    """Room messages over Redis pub/sub (see the module docstring)."""

    def __init__(self, deliver: Deliver, on_lost: Callable[[], None]) -> None:
        self._deliver = deliver
        self._on_lost = on_lost
        self._rooms: set[int] = set()
        self._publisher = _redis_client()
        self._pubsub: Any = None
        self._reader: asyncio.Task | None = None
        self._confirming: dict[bytes, asyncio.Future] = {}
        # One subscribe at a time: a fresh PubSub opens its connection on its first
        # command, and subscribes racing there would each open one of their own, of which
        # only the last is read (the others' rooms never confirmed, or never heard).
        self._subscribing = asyncio.Lock()

    async def join(self, room_id: int) -> None:
        self._rooms.add(room_id)
        try:
            await self._subscribe([room_id])
        except BaseException:
            self._rooms.discard(room_id)
            raise

    async def leave(self, room_id: int) -> None:
        self._rooms.discard(room_id)
        if self._pubsub is not None:
            try:
                await self._pubsub.unsubscribe(_channel(room_id))
            except Exception as exc:  # a lost connection is repaired by `rejoin`, without it
                log.warning("room=%s could not leave the room bus: %r", room_id, exc)

    async def publish(self, room_id: int, message: dict) -> int:
        return await self._publisher.publish(_channel(room_id), msgpack.packb(message))

    async def rejoin(self) -> None:
        await self._drop_subscriber()
        await self._subscribe(sorted(self._rooms))

    async def close(self) -> None:
        await self._drop_subscriber()
        await self._publisher.aclose()

    async def _subscribe(self, room_ids: list[int]) -> None:
        if not room_ids:
            return
        loop = asyncio.get_running_loop()
        channels = [_channel(room_id) for room_id in room_ids]
        waiting = []
        for channel in channels:
            if channel not in self._confirming:
                self._confirming[channel] = loop.create_future()
            waiting.append(self._confirming[channel])
        try:
            for attempt in range(1, SUBSCRIBE_ATTEMPTS + 1):
                async with self._subscribing:
                    if self._pubsub is None:
                        self._pubsub = _redis_client().pubsub()
                    await self._pubsub.subscribe(*channels)
                    if self._reader is None:
                        self._reader = loop.create_task(self._read(self._pubsub))
                # Redis confirms in order on this connection: once it has, every message
                # published after this point reaches us.
                try:
                    async with asyncio.timeout(SUBSCRIBE_TIMEOUT / SUBSCRIBE_ATTEMPTS):
                        await asyncio.gather(*(asyncio.shield(future) for future in waiting))
                    return
                except TimeoutError:
                    metrics.BUS_SUBSCRIBE_RETRIES.inc()
                    log.warning(
                        "Redis did not confirm the subscription to rooms %s (attempt %s of %s)",
                        room_ids,
                        attempt,
                        SUBSCRIBE_ATTEMPTS,
                    )
            from redis.exceptions import TimeoutError as RedisTimeout

            raise RedisTimeout("Redis did not confirm the subscription")
        finally:
            for channel in channels:
                future = self._confirming.get(channel)
                if future is not None and future.done():
                    del self._confirming[channel]

    async def _read(self, pubsub: Any) -> None:
        try:
            while True:
                message = await pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind, channel = message["type"], message["channel"]
                if kind == "message":
                    self._deliver(_room_of(channel), msgpack.unpackb(message["data"]))
                elif kind == "subscribe":
                    future = self._confirming.get(channel)
                    if future is not None and not future.done():
                        future.set_result(None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            from redis.exceptions import ConnectionError as RedisConnectionError

            log.warning("room bus connection lost: %r", exc)
            for future in self._confirming.values():
                if not future.done():
                    future.set_exception(RedisConnectionError("the room bus connection was lost"))
                    future.exception()  # the joiner re-raises it; nobody else must
            self._confirming.clear()
            if self._pubsub is pubsub:
                self._reader = None
                self._on_lost()

    async def _drop_subscriber(self) -> None:
        reader, pubsub = self._reader, self._pubsub
        self._reader = self._pubsub = None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):  # cancelled or already failed: both end it
                await reader
        if pubsub is not None:
            with contextlib.suppress(Exception):  # a broken connection closes as well as it can
                await pubsub.aclose()


def spans_processes(bus: Bus) -> bool:
    """Whether messages on `bus` reach other processes."""
    return isinstance(bus, RedisBus)


def make_bus(deliver: Deliver, on_lost: Callable[[], None]) -> Bus:
    """The bus this deployment uses: Redis when several processes share one (REDIS_URL)."""
    if settings.REDIS_URL:
        return RedisBus(deliver, on_lost)
    return LocalBus(deliver)


async def publish_from_elsewhere(room_id: int, message: dict) -> None:
    """Publish from an event loop that is not the server's (a management command): a
    connection of its own, closed after."""
    if not settings.REDIS_URL:
        return  # an embedded server runs in one process: nothing outside it listens
    client = _redis_client()
    try:
        await client.publish(_channel(room_id), msgpack.packb(message))
    finally:
        await client.aclose()
