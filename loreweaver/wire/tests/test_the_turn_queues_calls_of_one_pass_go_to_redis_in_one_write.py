"""The hosted store's calls made in one pass of the event loop (the rooms' turns, each
at its own step: a rate limit, a ticket drawn, a turn released) go to Redis in one
write, one system call instead of one each (`loreweaver/wire/redis_pipe.py`;
docs/performance.md, "Fewer writes to Redis")."""

from __future__ import annotations

import asyncio

import pytest
from django.conf import settings

from loreweaver.testing.servers import hosted_profile
from loreweaver.wire.redis_pipe import RedisPipe

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the Redis store is the hosted profile's")


async def test_a_hundred_calls_of_one_pass_are_one_write_and_each_gets_its_reply(monkeypatch):
    pipe = RedisPipe(settings.REDIS_URL, "one-write")
    try:
        assert await pipe.call("PING") == b"PONG"  # connected
        transport = pipe._replies._transport
        writes: list[bytes] = []
        write = transport.write

        def counted(data: bytes) -> None:
            writes.append(data)
            write(data)

        monkeypatch.setattr(transport, "write", counted)
        replies = await asyncio.gather(*(pipe.call("ECHO", f"call {n}") for n in range(100)))
        later = await pipe.call("ECHO", "a later pass")
    finally:
        pipe.close()

    assert replies == [f"call {n}".encode() for n in range(100)]
    assert later == b"a later pass"
    assert len(writes) == 2, "the hundred calls in one write, the later one in its own"
