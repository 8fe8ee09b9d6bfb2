"""The embedded profile's cache: the process's own memory (`settings.CACHES`)."""

from __future__ import annotations

from django.core.cache.backends.locmem import LocMemCache


class ProcessMemoryCache(LocMemCache):
    """Django's local-memory cache, without checking each key for memcached at every
    call. The check walks the key character by character in Python, to warn about keys
    memcached would refuse; these keys never go to memcached, and on a turn's path (the
    hook scripts' generation, `packs/hook_cache.py`; the coordination store's turn queue
    and rate limit were kept here too then) it was a fortieth of the server's work."""

    def validate_key(self, key: str) -> None:
        """Every key is fine: nothing here goes to memcached."""
