"""The Redis store's client belongs to the event loop it was made on: a loop that closed
takes its client with it, and a new loop gets its own. (The store keeps clients by the
loop object, weakly, never by `id(loop)`, which a later loop can reuse; when CPython
reuses an address cannot be arranged in a test.) (docs/operations.md, "A process
stalls, or its clock is wrong")."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
from django.conf import settings

from loreweaver.testing.servers import hosted_profile
from loreweaver.wire.stores import RedisStore

pytestmark = pytest.mark.skipif(not hosted_profile(), reason="the Redis store is the hosted profile's")


def _on_a_new_loop(work):
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(work())
    finally:
        loop.close()


def test_a_client_made_for_a_loop_that_closed_is_not_reused_for_a_new_loop():
    store = RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX)

    async def use():
        await store.set("loop-check", 1, 60)
        return store._pipe()

    first = weakref.ref(_on_a_new_loop(use))
    gc.collect()

    async def use_and_close():
        client = await use()
        await store.close()
        return client

    second = _on_a_new_loop(use_and_close)
    assert second is not first()
    del second
    gc.collect()
    assert first() is None, "the closed loop's client is still held"
