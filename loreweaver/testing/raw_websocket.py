"""A WebSocket member made by hand on a plain socket: one that reads only when the
test says so (and so lets the server's buffers fill), and sees the frames' bytes."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct


def join_by_hand(ws_url: str, key: str, *, receive_buffer: int = 4096) -> socket.socket:
    """Open a WebSocket with a small receive window, send a join, and read nothing more."""
    host, port = ws_url.removeprefix("ws://").rstrip("/").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)  # small window: stall early
    sock.connect((host, int(port)))
    nonce = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert b" 101 " in response.split(b"\r\n", 1)[0]
    _send(sock, TEXT, json.dumps({"type": "join", "key": key}).encode())
    return sock


# The first byte of a whole (final) frame of each kind a server may send.
TEXT, PING, PONG = 0x81, 0x89, 0x8A


def _send(sock: socket.socket, first: int, payload: bytes) -> None:
    """One whole frame, masked as a client's must be."""
    mask = os.urandom(4)
    header = (
        bytes([first, 0x80 | 126]) + struct.pack(">H", len(payload))
        if len(payload) > 125
        else bytes([first, 0x80 | len(payload)])
    )
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        piece = sock.recv(size - len(data))
        if not piece:
            raise ConnectionError("the server closed the connection")
        data += piece
    return data


def read_frame(sock: socket.socket) -> dict:
    """The next text frame from the server, parsed (a server's frames are unmasked, whole
    messages); fails on anything else, or on a frame whose bytes are not one JSON value.
    The server's keepalive pings between them (daphne's, after 20 s without a message
    from the client) are answered, as any client's WebSocket library does."""
    while True:
        first, second = _exactly(sock, 2)
        assert not second & 0x80, "a server's frame is never masked"
        size = second & 0x7F
        if size == 126:
            size = struct.unpack(">H", _exactly(sock, 2))[0]
        elif size == 127:
            size = struct.unpack(">Q", _exactly(sock, 8))[0]
        payload = _exactly(sock, size)
        if first == PING:
            _send(sock, PONG, payload)
        elif first != PONG:
            assert first == TEXT, f"not a whole text frame: first byte {first:#x}"
            return json.loads(payload)
