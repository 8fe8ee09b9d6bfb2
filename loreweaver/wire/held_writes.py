"""Holding a room's burst of frames for one write per member.

A turn reaches each member as a few frames at once: its line (or its roll and the
line that tells it) and the table's `state` after it, one `room.batch` of the bus
(`hub.LocalHub._deliver`). Written one by one, each frame is a `send` system call per
member, whose TCP work the kernel charges to the server (on loopback, the receiving
side's too). While a batch is delivered (`held()`), a WebSocket connection's writes
are kept (`hold`) and, when the batch has been handed to every member, written as one
piece per connection as `held()` ends: the same bytes, in the same order, fewer calls.
Nothing here knows the socket: the carrier's protocol asks to hold and writes what it
is given back (`loreweaver/wire/server.py`, `BoundedWebSocketProtocol.sendData`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

# Per connection, its held pieces and how to write them, in the order the connections
# first wrote; None while no batch is being delivered.
_held: dict[object, tuple[list[bytes], Callable[[bytes], None]]] | None = None


def hold(connection: object, data: bytes, write: Callable[[bytes], None]) -> bool:
    """Keep `data` for `connection` until the batch being delivered has reached every
    member (then `write` is called with all it kept, once); false, and nothing kept,
    when no batch is being delivered."""
    if _held is None:
        return False
    kept = _held.get(connection)
    if kept is None:
        _held[connection] = ([data], write)
    else:
        kept[0].append(data)
    return True


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Hold the connections' writes for the body (one batch's delivery), then write
    each connection's in one piece. Nested, the outermost releases."""
    global _held
    if _held is not None:
        yield
        return
    _held = {}
    try:
        yield
    finally:
        kept, _held = _held, None
        for pieces, write in kept.values():
            try:
                write(pieces[0] if len(pieces) == 1 else b"".join(pieces))
            except Exception:  # one connection's failure must not cost the others theirs
                log.exception("a held write failed")
