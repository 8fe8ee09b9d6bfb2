"""The Iroh binding's byte loop is replaced by one copy (`loreweaver/wire/iroh_bytes.py`),
and the library gets exactly the buffer its own loop would have built: for control
lines, Chinese text, binary media pieces and every kind of bytes-like value."""

from __future__ import annotations

import os

import pytest
from iroh import iroh_ffi

from loreweaver.wire import iroh_bytes

VALUES = [
    b"",
    b"x",
    b'{"type":"input","text":".r 1d100"}\n',
    "守秘人掷骰 🎲 侦查".encode(),
    os.urandom(70_000),
    bytearray(os.urandom(1000)),
    memoryview(os.urandom(5000)),
]


def _buffer(write, values: list) -> bytes:
    builder = iroh_ffi._UniffiRustBufferBuilder()
    try:
        for value in values:
            write(builder, value)
        return builder.rbuf.data[0 : builder.rbuf.len]
    finally:
        builder.discard()


def test_the_servers_iroh_carrier_installs_the_one_copy():
    import loreweaver.wire.iroh_carrier  # noqa: F401  (installs it at import)

    assert iroh_ffi._UniffiRustBufferBuilder.write is iroh_bytes._write
    assert iroh_bytes.library_write() is not None


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{type(v).__name__}-{len(v)}")
def test_one_value_is_copied_as_the_binding_copies_it(value):
    assert iroh_bytes.install()
    assert _buffer(iroh_bytes._write, [value]) == _buffer(iroh_bytes.library_write(), [value])


def test_values_written_one_after_another_land_one_after_another():
    assert iroh_bytes.install()
    # Later writes grow the buffer past its first capacity, as a long media piece does.
    assert _buffer(iroh_bytes._write, VALUES * 3) == _buffer(iroh_bytes.library_write(), VALUES * 3)
