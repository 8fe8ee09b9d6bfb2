"""Writing a text frame to many WebSocket members cheaply.

A room frame goes to every member who may see it, as the same text (`seats.encoded_for`
encodes it once per language). Two costs were per member and need not be:

- autobahn's `sendMessage` builds the WebSocket frame anew for each connection; its own
  broadcast path (`PreparedMessage`, `sendPreparedMessage`) frames a message once and
  writes the same bytes to every connection. `prepared_text` keeps the prepared frame of
  each recent text, so the members of a room share it.
- Twisted holds every write for the reactor's next turn: it registers the socket for
  writing, waits for the loop to say it is writable, writes, and unregisters it: two
  `epoll_ctl` calls and a loop callback per frame per member. `write_now` writes to the
  socket at once when nothing is waiting before it (the socket almost always takes a
  frame whole) and leaves only what the socket did not take to Twisted's buffer, so the
  order, the back-pressure (`server._Congestion`) and a slow reader's drop are Twisted's
  as before.
"""

from __future__ import annotations

from autobahn.websocket.protocol import PreparedMessage
from twisted.internet import tcp

# Texts up to this size keep their prepared frame for the next member; a bigger one (a
# replay's long line, a panel) is framed for each, not kept.
SHARED_TEXT_LIMIT = 16 * 1024
# How many recent texts keep their frame: a room frame reaches all its members within
# the same few callbacks, so a short memory is enough, and it stays small.
_KEPT = 256
_prepared: dict[str, PreparedMessage] = {}
# Writes up to this size go to the socket at once; a bigger one (a media file of many
# megabytes) is Twisted's to write in pieces, without a copy of what the socket left.
WRITE_NOW_LIMIT = 256 * 1024


def prepared_text(text: str) -> PreparedMessage:
    """`text` as autobahn's prepared text message: the same frame bytes for every member
    it is written to."""
    prepared = _prepared.get(text)
    if prepared is None:
        prepared = PreparedMessage(text.encode("utf-8"), False, False, False)
        if len(text) <= SHARED_TEXT_LIMIT:
            if len(_prepared) >= _KEPT:
                _prepared.clear()
            _prepared[text] = prepared
    return prepared


def write_now(transport: object, data: bytes) -> bytes:
    """Write `data` to `transport`'s socket at once if nothing is waiting to be written
    before it; what the socket did not take (all of `data` when it could not be written
    at once: a big write, a TLS transport, a closing one, bytes already waiting) is
    returned, for Twisted's buffer."""
    if len(data) > WRITE_NOW_LIMIT or type(transport) is not tcp.Server or transport.TLS:
        return data
    if transport.disconnecting or not transport.connected:
        return data
    if transport._tempDataLen or len(transport.dataBuffer) > transport.offset:
        return data  # bytes before it wait for the reactor: this one must follow them
    written = transport.writeSomeData(data)
    if isinstance(written, Exception) or written <= 0:
        return data  # Twisted's own write finds out what went wrong, as it would have
    return data[written:]
