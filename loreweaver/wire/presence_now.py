"""Who is online in a room, read synchronously for the admin and the console, on a
short-lived store of the call's own (`coordination.py` keeps presence)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from asgiref.sync import async_to_sync
from django.conf import settings

from loreweaver.wire.coordination import Coordination, Member
from loreweaver.wire.stores import LocalStore, RedisStore

_T = TypeVar("_T")


def _read_now(work: Callable[[Coordination], Awaitable[_T]]) -> _T:
    """Run `work` synchronously (for the admin), on a short-lived store on this call's
    own event loop: the shared one belongs to the server's loop."""

    async def read() -> _T:
        store = RedisStore(settings.REDIS_URL, settings.REDIS_PREFIX) if settings.REDIS_URL else LocalStore()
        try:
            return await work(Coordination(store))
        finally:
            if isinstance(store, RedisStore):
                await store.close()

    return async_to_sync(read)()


def online_now(room_ids: list[int]) -> dict[int, list[Member]]:
    """Who is online in each room, read synchronously (for the admin)."""

    async def members(coordination: Coordination) -> dict[int, list[Member]]:
        return {room_id: await coordination.online_members(room_id) for room_id in room_ids}

    return _read_now(members)


def online_carriers_now(room_id: int) -> list[tuple[Member, list[str]]]:
    """Who is online in the room and how each is connected, read synchronously (for the admin)."""
    return _read_now(lambda coordination: coordination.online_carriers(room_id))


def online_counts(room_ids: list[int]) -> dict[int, int]:
    """How many members are online in each room, read synchronously (for the admin)."""
    return {room_id: len(members) for room_id, members in online_now(room_ids).items()}
