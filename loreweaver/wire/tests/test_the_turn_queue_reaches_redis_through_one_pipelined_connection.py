"""The hosted store (presence, the rate limit and the turn queue: three or four scripts per
input) talks to Redis on one connection per process, with any number of calls in
flight, each caller given its own reply (`loreweaver/wire/redis_pipe.py`;
docs/performance.md, "The turn queue's way to Redis")."""

from __future__ import annotations

import asyncio
import os
import ssl
import uuid
from urllib.parse import urlsplit

import pytest
import redis
from django.conf import settings

from loreweaver.testing.servers import hosted_profile
from loreweaver.wire import redis_pipe
from loreweaver.wire.redis_pipe import RedisPipe
from loreweaver.wire.stores import RedisStore

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the Redis store is the hosted profile's")


def _admin() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def _connections_named(name: str) -> list[dict]:
    return [client for client in _admin().client_list() if client.get("name") == name]


async def test_many_inputs_at_once_use_one_connection_and_each_gets_its_own_answer():
    prefix = f"pipe{uuid.uuid4().hex[:8]}"
    store = RedisStore(settings.REDIS_URL, prefix)
    try:
        # 60 members of 6 rooms typing at once: a burst of 3 each, so the fourth input of
        # a member is refused and no other member's is.
        buckets = [[f"member:{n}"] for n in range(60)]
        answers = await asyncio.gather(*(store.take_tokens(bucket, 3, 600, 1860) for bucket in buckets * 4))
        tickets = await asyncio.gather(*(store.draw_ticket(room, "p") for room in [1, 2] * 50))
        named = _connections_named(f"{prefix}-turns-{os.getpid()}")
    finally:
        await store.close()

    assert answers == [True] * 180 + [False] * 60
    assert tickets[0::2] == list(range(1, 51))
    assert tickets[1::2] == list(range(1, 51))
    assert len(named) == 1


async def test_a_script_redis_forgot_is_sent_again_whole():
    store = RedisStore(settings.REDIS_URL, f"pipe{uuid.uuid4().hex[:8]}")
    try:
        assert await store.draw_ticket(7, "p") == 1
        _admin().script_flush()  # as a Redis restarted without persistence would have
        assert await store.draw_ticket(7, "p") == 2
    finally:
        await store.close()


async def test_a_call_on_a_connection_redis_dropped_fails_and_the_next_one_connects_again():
    name = f"pipe{uuid.uuid4().hex[:8]}"
    pipe = RedisPipe(settings.REDIS_URL, name)
    key = f"{name}:count"
    try:
        assert await pipe.call("INCR", key) == 1
        # A call waiting on the connection when Redis drops it fails; nothing hangs.
        waiting = asyncio.ensure_future(pipe.call("BLPOP", f"{name}:never", 5))
        await asyncio.sleep(0)
        (connection,) = _connections_named(name)
        _admin().client_kill_filter(_id=connection["id"])
        with pytest.raises(redis.ConnectionError):
            await asyncio.wait_for(waiting, 5)
        assert await pipe.call("INCR", key) == 2
        assert len(_connections_named(name)) == 1
    finally:
        pipe.close()
        _admin().delete(key)


async def test_a_caller_who_gave_up_does_not_shift_the_answers_of_the_others():
    name = f"pipe{uuid.uuid4().hex[:8]}"
    pipe = RedisPipe(settings.REDIS_URL, name)
    try:
        await pipe.call("SET", f"{name}:a", "first")
        slow = asyncio.ensure_future(pipe.call("BLPOP", f"{name}:empty", 0.2))
        behind = asyncio.ensure_future(pipe.call("GET", f"{name}:a"))
        await asyncio.sleep(0)  # both are written (the connection is up)
        slow.cancel()
        assert await asyncio.wait_for(behind, 5) == b"first"
        assert await pipe.call("GET", f"{name}:a") == b"first"
    finally:
        pipe.close()
        _admin().delete(f"{name}:a")


async def test_the_database_number_in_the_url_is_the_one_used():
    name = f"pipe{uuid.uuid4().hex[:8]}"
    base = settings.REDIS_URL.rsplit("/", 1)[0]
    pipe = RedisPipe(f"{base}/3", name)
    try:
        await pipe.call("SET", f"{name}:where", "three")
        assert redis.Redis.from_url(f"{base}/3").get(f"{name}:where") == b"three"
        assert redis.Redis.from_url(f"{base}/0").get(f"{name}:where") is None
    finally:
        pipe.close()
        redis.Redis.from_url(f"{base}/3").delete(f"{name}:where")


def test_a_tls_url_checks_the_servers_certificate_unless_it_says_not_to():
    checked = redis_pipe._tls(urlsplit("rediss://cache.example:6380/0"))
    unchecked = redis_pipe._tls(urlsplit("rediss://cache.example:6380/0?ssl_cert_reqs=none"))

    assert checked.verify_mode == ssl.CERT_REQUIRED and checked.check_hostname
    assert unchecked.verify_mode == ssl.CERT_NONE and not unchecked.check_hostname


def test_a_url_that_is_not_redis_is_refused_with_the_forms_that_are():
    with pytest.raises(ValueError, match=r"redis://, rediss:// or unix://"):
        RedisPipe("http://127.0.0.1:6379/0", "pipe")
