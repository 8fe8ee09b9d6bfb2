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
    payload = json.dumps({"type": "join", "key": key}).encode()
    mask = os.urandom(4)
    header = (
        bytes([0x81, 0x80 | 126]) + struct.pack(">H", len(payload))
        if len(payload) > 125
        else bytes([0x81, 0x80 | len(payload)])
    )
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    return sock


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
    messages); fails on anything else, or on a frame whose bytes are not one JSON value."""
    first, second = _exactly(sock, 2)
    assert first == 0x81, f"not a whole text frame: first byte {first:#x}"
    assert not second & 0x80, "a server's frame is never masked"
    size = second & 0x7F
    if size == 126:
        size = struct.unpack(">H", _exactly(sock, 2))[0]
    elif size == 127:
        size = struct.unpack(">Q", _exactly(sock, 8))[0]
    return json.loads(_exactly(sock, size))
