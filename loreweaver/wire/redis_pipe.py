"""A short way to Redis: one connection per event loop, any number of commands in
flight on it, the replies matched to them in order. The coordination store
(`stores.RedisStore`: presence, the rate limit, the turn queue) and the room bus's
publishes (`layer.py`) use it; the bus's subscriptions keep redis-py's client.

Every input runs three or four of the store's scripts (the rate limit, drawing,
claiming and releasing the turn). Through redis-py's asyncio client each call takes a connection
from the pool under a lock, counts it for its observability hooks, checks the
connection, wraps the call in its retry and its timeouts, and gives the connection
back the same way: about three quarters of a script call's CPU in this process, the
same whatever the script does; and the pool refuses a call past its hundredth in
flight. Here a call is its packed command and a future resolved when its reply is
parsed (both by hiredis, in C); the commands of one pass of the event loop (the
rooms' turns, each at its own step) go to the socket in one write at its end.
Replies are Redis's own (RESP2, as hiredis reads them): bytes, integers, lists, None.

Nothing is retried: a call that meets a dropped connection fails (as redis-py's first
call on a stale connection does after a Redis restart) and the next call connects
again.

URLs: `redis://[[user]:password@]host[:port][/db]`, `unix://path[?db=N]`, and
`rediss://` for TLS, which checks the server's certificate and name against the
system's authorities unless the URL says `ssl_cert_reqs=none`, or names its own
authority with `ssl_ca_certs=<file>`.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections import deque
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

SCHEMES = ("redis", "rediss", "unix")


class _Replies(asyncio.Protocol):
    """One connection: the commands of one pass of the event loop written together,
    replies handed back in order."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader()
        self._waiting: deque[asyncio.Future] = deque()
        self._transport: asyncio.Transport | None = None
        self._unsent: list[bytes] | None = None  # packed, to be written at the end of this pass
        self.lost: Exception | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            future = self._waiting.popleft()
            if future.done():  # its caller was cancelled: the reply is dropped
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(ResponseError(str(reply)))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = RedisConnectionError(f"the connection to Redis was lost: {exc or 'closed'}")
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_exception(self.lost)

    def send(self, args: tuple) -> asyncio.Future:
        """Send one command with the others of this pass of the loop; the future gets
        its reply."""
        if self.lost is not None:
            raise self.lost
        assert self._transport is not None  # set before the connection is handed out
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append(future)
        if self._unsent is None:
            # Every write is a system call, and on loopback the whole way into Redis: the
            # rooms' turns of one pass of the loop go in one.
            self._unsent = []
            loop.call_soon(self._write)
        self._unsent.append(hiredis.pack_command(args))
        return future

    def _write(self) -> None:
        unsent, self._unsent = self._unsent or [], None
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(b"".join(unsent))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class RedisPipe:
    """Commands and scripts to the Redis at `url`, for one event loop, on a connection
    named `name` (what Redis's `CLIENT LIST` shows)."""

    def __init__(self, url: str, name: str) -> None:
        self._url = urlsplit(url)
        if self._url.scheme not in SCHEMES:
            raise ValueError(f"a Redis URL starts with redis://, rediss:// or unix://, not {url!r}")
        self._name = name
        self._replies: _Replies | None = None
        self._connecting: asyncio.Task | None = None
        self._shas: dict[str, str] = {}

    async def _connected(self) -> _Replies:
        """A connection, made now (or by the call already making one)."""
        if self._connecting is None or self._connecting.done():
            self._connecting = asyncio.ensure_future(self._connect())
        return await asyncio.shield(self._connecting)

    async def _connect(self) -> _Replies:
        loop = asyncio.get_running_loop()
        url = self._url
        try:
            if url.scheme == "unix":
                _, replies = await loop.create_unix_connection(_Replies, url.path)
            else:
                host = url.hostname or "127.0.0.1"
                tls = _tls(url) if url.scheme == "rediss" else None
                _, replies = await loop.create_connection(
                    _Replies, host, url.port or 6379, ssl=tls, server_hostname=host if tls else None
                )
        except OSError as exc:
            raise RedisConnectionError(f"cannot reach Redis at {url.hostname}:{url.port}: {exc}") from exc
        try:
            if url.password is not None:  # AUTH [username] password
                credentials = [unquote(part) for part in (url.username, url.password) if part]
                await replies.send(("AUTH", *credentials))
            database = _database(url)
            if database:
                await replies.send(("SELECT", database))
            await replies.send(("CLIENT", "SETNAME", self._name))
        except BaseException:  # a wrong password, say: the connection is not kept
            replies.close()
            raise
        self._replies = replies
        return replies

    async def call(self, *args: Any) -> Any:
        """One command's reply (a Redis error is raised as redis-py's `ResponseError`)."""
        replies = self._replies
        if replies is None or replies.lost is not None:
            replies = await self._connected()
        return await replies.send(args)

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """Run the Lua `source` by its digest; sent whole when Redis does not know it yet
        (a first call, or a Redis restarted since)."""
        sha = self._shas.get(source)
        if sha is None:
            sha = self._shas[source] = hashlib.sha1(source.encode()).hexdigest()
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self.call("EVAL", source, len(keys), *keys, *args)

    def close(self) -> None:
        """Close the connection (calls in flight fail)."""
        if self._replies is not None:
            self._replies.close()


def _tls(url: Any) -> ssl.SSLContext:
    """The TLS context a `rediss://` URL asks for (see the module docstring)."""
    options = parse_qs(url.query)
    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs", [None])[0])
    if options.get("ssl_cert_reqs", [""])[0].lower() == "none":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _database(url: Any) -> int:
    """The database number of a `redis://host/N` or `unix://path?db=N` URL."""
    chosen = parse_qs(url.query).get("db", [""])[0]
    if chosen.isdigit():
        return int(chosen)
    path = url.path.strip("/") if url.scheme != "unix" else ""
    return int(path) if path.isdigit() else 0
