"""The channel layers the room bus runs on (`CHANNEL_LAYERS` in settings).

Hosted: channels-redis's pub/sub layer, `RoomPubSubLayer`, with what a room bus needs
that the layer's own connection leaves out:

- A dropped Redis connection is reported, never hidden. Pub/sub keeps nothing for a
  process that is not listening, so the layer's connections never retry behind our
  back, and every channel of the process hears the layer's `on_disconnect` message
  (`DISCONNECT` unless configured) when the connection drops, then `on_reconnect`
  (`RECONNECT`) once Redis has confirmed every subscription again (channels-redis
  takes the two options but does not send them).
- A subscription counts once Redis confirms it: `group_add` returns when messages
  published to the group from anywhere reach this process.
- `group_send` answers how many processes the message reached (Redis's PUBLISH count).
- Publishes go out on one pipelined connection per process (`redis_pipe.py`), not
  through the pool's connections, one taken and given back per publish.
- Its connections are named `<prefix>-bus-<pid>` (`CLIENT LIST` shows whose they are).

This leans on names channels-redis keeps private, so the library is pinned exactly
(requirements.txt) and
`tests/test_the_room_bus_relies_only_on_channels_redis_internals_it_checks.py` fails
when one of them changes (their signatures, and a hash of each method's source this
module replaces or depends on); read the library's change, adapt this module, update
the test. The names:

- `RedisSingleShardConnection`: replaced `_ensure_redis` and `_do_receiving` (and the
  public `publish`, `subscribe`); called `_ensure_receiver`, `_receive_message`; read
  `_redis`, `_pubsub`, `_lock`, `_subscribed_to`.
- `RedisPubSubLoopLayer`: set `_shards` (ours for its own), replaced the public `group_send`;
  called `_get_group_channel_name`, `_get_shard`.
- `RedisPubSubChannelLayer`: replaced `_get_layer`; read `_layers`, `_args`, `_kwargs`.
- `channels_redis.utils`: called `_wrap_close`.

Embedded: `RoomMemoryLayer`, the in-memory layer, without its copy of every message
(a room message is plain data that nobody changes once sent: the receiving sessions
only add what they share to it, the encoded texts, the snapshot read back, the shared
`state`s) and without expiring a group membership (a room can stay open for days).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close
from django.conf import settings
from redis import asyncio as aioredis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeout
from redis.retry import Retry

from base import failpoints, metrics
from loreweaver.wire.redis_pipe import RedisPipe

log = logging.getLogger(__name__)

# The message types every channel hears when the Redis connection drops and comes back.
DISCONNECT = "bus.disconnect"
RECONNECT = "bus.reconnect"

# How long subscribing waits for Redis to confirm, in all; the subscription is sent
# again (logged, counted) after each share of it.
SUBSCRIBE_TIMEOUT = 10.0
SUBSCRIBE_ATTEMPTS = 3


def client_name(pid: int | None = None) -> str:
    """The name of the room bus connections of process `pid` (this one by default)."""
    return f"{settings.REDIS_PREFIX}-bus-{pid or os.getpid()}"


class _Shard(RedisSingleShardConnection):
    """One Redis connection pair (publish, subscribe) of the layer, loss reported."""

    def __init__(self, host: dict, channel_layer: RedisPubSubLoopLayer) -> None:
        super().__init__(host, channel_layer)
        self._confirming: dict[str, asyncio.Future] = {}
        self._lost = False
        self._awaiting_again: set[str] = set()
        # Publishes go out through a pipe of their own (`redis_pipe.py`): one connection,
        # any number in flight, none of the pool's own work per call.
        self._publisher = RedisPipe(host["address"], client_name())

    def _ensure_redis(self) -> None:
        if self._redis is None:
            pool = aioredis.ConnectionPool.from_url(
                self.host["address"],
                retry=Retry(NoBackoff(), 0),
                socket_keepalive=True,
                client_name=client_name(),
            )
            self._redis = aioredis.Redis(connection_pool=pool)
            self._pubsub = self._redis.pubsub()

    async def publish(self, channel: str, message: bytes) -> int:
        # Not under the shard's lock, as channels-redis publishes: publishes go out side
        # by side instead of one round trip at a time.
        return await self._publisher.call("PUBLISH", channel, message)

    async def flush(self) -> None:
        await super().flush()
        self._publisher.close()

    async def subscribe(self, channel: str) -> None:
        if channel in self._subscribed_to:
            return
        future = self._confirming.setdefault(channel, asyncio.get_running_loop().create_future())
        try:
            for attempt in range(1, SUBSCRIBE_ATTEMPTS + 1):
                async with self._lock:
                    self._ensure_redis()
                    self._ensure_receiver()
                    await self._pubsub.subscribe(channel)
                try:
                    async with asyncio.timeout(SUBSCRIBE_TIMEOUT / SUBSCRIBE_ATTEMPTS):
                        await asyncio.shield(future)
                    self._subscribed_to.add(channel)
                    return
                except TimeoutError:
                    metrics.BUS_SUBSCRIBE_RETRIES.inc()
                    log.warning("Redis did not confirm the subscription to %s (attempt %s)", channel, attempt)
            raise RedisTimeout("Redis did not confirm the subscription")
        finally:
            if future.done() and self._confirming.get(channel) is future:
                del self._confirming[channel]

    async def unsubscribe(self, channel: str) -> None:
        try:
            await super().unsubscribe(channel)
        except (RedisConnectionError, OSError) as exc:
            # Redis forgot the subscription with the connection; a reconnect may subscribe
            # it again, which costs nothing (no one reads it).
            self._subscribed_to.discard(channel)
            log.info("could not unsubscribe %s while the room bus is away: %r", channel, exc)

    async def _do_receiving(self) -> None:
        delay = 0.05
        while True:
            try:
                if not (self._pubsub and self._pubsub.subscribed):
                    await asyncio.sleep(0.05)
                    continue
                if self._lost:
                    failpoints.hit("bus.reconnect")  # a fault test keeps Redis away longer
                message = await self._pubsub.get_message(timeout=None)
                delay = 0.05
                if message is not None:
                    self._heard(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._dropped(exc)
                # With no retries, redis-py leaves a failed connection open; closed, the
                # next read connects again and resubscribes (redis-py's `on_connect`).
                if self._pubsub.connection is not None:
                    await self._pubsub.connection.disconnect(nowait=True)
                await asyncio.sleep(delay)  # Redis is away: look again, a little later each time
                delay = min(delay * 2, 1.0)

    def _heard(self, message: dict) -> None:
        kind, name = message["type"], message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        if kind == "message":
            self._receive_message(message)
        elif kind == "subscribe":
            future = self._confirming.get(name)
            if future is not None and not future.done():
                future.set_result(None)
            self._awaiting_again.discard(name)
            if self._lost and not self._awaiting_again:
                self._lost = False
                log.warning("room bus connection back: every subscription confirmed again")
                self._tell_every_channel(self.channel_layer.on_reconnect)

    def _dropped(self, exc: Exception) -> None:
        for future in self._confirming.values():
            if not future.done():
                future.set_exception(RedisConnectionError("the room bus connection was lost"))
                future.exception()  # the subscriber re-raises it; nobody else must
        if self._lost:
            return
        log.warning("room bus connection lost: %r", exc)
        self._lost = True
        # Reconnecting subscribes again to all of these (redis-py's `on_connect`).
        self._awaiting_again = set(self._subscribed_to)
        self._tell_every_channel(self.channel_layer.on_disconnect)

    def _tell_every_channel(self, kind: str) -> None:
        packed = self.channel_layer.channel_layer.serialize({"type": kind})
        for queue in self.channel_layer.channels.values():
            queue.put_nowait(packed)


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]

    async def group_send(self, group: str, message: dict) -> int:
        channel = self._get_group_channel_name(group)
        return await self._get_shard(channel).publish(channel, self.channel_layer.serialize(message))


class RoomPubSubLayer(RedisPubSubChannelLayer):
    """channels-redis's pub/sub layer, losses reported (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("on_disconnect", DISCONNECT)
        kwargs.setdefault("on_reconnect", RECONNECT)
        super().__init__(*args, **kwargs)

    def _get_layer(self) -> _LoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer


class RoomMemoryLayer(InMemoryChannelLayer):
    """The in-memory layer (one process), messages handed over as they are."""

    def __init__(self, capacity: int = 10_000, **kwargs: Any) -> None:
        super().__init__(capacity=capacity, group_expiry=10 * 365 * 86400, **kwargs)

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict)
        queue = self._channel_queue(channel)
        if queue.full():
            raise ChannelFull(channel)
        queue.put_nowait((time.time() + self.expiry, message))

    async def receive(self, channel: str) -> dict:
        # As the in-memory layer receives, without sweeping every channel and group for
        # expired entries on each message (nothing here expires), and keeping the queue
        # while its reader reads: it goes when the reader stops (a room left).
        queue = self._channel_queue(channel)
        try:
            _expires, message = await queue.get()
        except asyncio.CancelledError:
            if queue.empty() and self.channels.get(channel) is queue:
                del self.channels[channel]
            raise
        return message

    def _channel_queue(self, channel: str) -> asyncio.Queue:
        """The channel's queue, made (its name checked) on first use only: every message
        of a room passes here twice."""
        queue = self.channels.get(channel)
        if queue is None:
            self.require_valid_channel_name(channel)
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def group_send(self, group: str, message: dict) -> int:
        """Send to every channel of the group; how many it reached."""
        channels = list(self.groups.get(group, {}))
        for channel in channels:
            try:
                await self.send(channel, message)
            except ChannelFull:
                log.warning("room bus channel %s is full: a message was dropped", channel)
        return len(channels)
