"""A TCP relay on loopback whose every new connection takes a while to open, as to a
busy or distant Redis: what a burst of first subscriptions at a cold start meets on a
loaded host, made repeatable. Bytes pass through unchanged once connected."""

from __future__ import annotations

import asyncio
import contextlib
import threading


class SlowConnectRelay:
    """Relays 127.0.0.1:<port> to `upstream` ("host", port), each connection opened
    `delay` seconds after it was accepted."""

    def __init__(self, upstream: tuple[str, int], delay: float) -> None:
        self.upstream = upstream
        self.delay = delay
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slow-link", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def url(self, database: int = 0) -> str:
        """A redis:// URL through the relay."""
        return f"redis://127.0.0.1:{self.port}/{database}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()
        relays = [task for task in asyncio.all_tasks(self._loop) if not task.done()]
        for task in relays:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*relays, return_exceptions=True))
        self._loop.close()

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(self.delay)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            _pipe(client_reader, upstream_writer),
            _pipe(upstream_reader, client_writer),
            return_exceptions=True,
        )

    def stop(self) -> None:
        """Stop relaying (open connections are dropped)."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.close()
