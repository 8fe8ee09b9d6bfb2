"""The Iroh carrier's own rules: the 1 MiB line guard, relays on by default."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient
from loreweaver.testing.servers import ServerProcess
from loreweaver.wire.iroh_carrier import LINE_LIMIT, LineReader


def test_the_line_reader_splits_lines_across_chunks():
    reader = LineReader(limit=10)
    assert reader.feed(b'{"a":') == []
    assert reader.feed(b"1}\n{}\n{") == [b'{"a":1}', b"{}"]
    assert reader.feed(b"}\n") == [b"{}"]


def test_a_line_over_the_limit_is_refused_once_and_skipped_to_its_end():
    reader = LineReader(limit=10)
    assert reader.feed(b"x" * 11) == [None]
    assert reader.feed(b"y" * 50) == []
    assert reader.feed(b"zz\n{}\n") == [b"{}"]
    assert reader.feed(b"q" * 11 + b"\n") == [None]


async def test_an_oversized_line_after_join_is_bad_frame_and_the_connection_stays(server, room):
    key = server.env.mint(room, "Huge")
    async with await IrohClient.connect(server.ticket) as client:
        await client.join(key)
        await client.send(b'{"type":"input","text":"' + b"a" * (LINE_LIMIT + 10) + b'"}\n')
        assert (await client.expect("error"))["code"] == "bad_frame"
        await client.send({"type": "ping", "t": 3})
        assert (await client.expect("pong"))["t"] == 3


async def test_an_oversized_line_before_join_is_bad_frame_and_closes(server):
    client = await IrohClient.connect(server.ticket, first=b"x" * (LINE_LIMIT + 10))
    try:
        frames = await client.wait_closed()
    finally:
        await client.close()
    assert [f["code"] for f in frames] == ["bad_frame"]


async def test_with_relays_on_by_default_a_loopback_client_still_joins(fresh_env):
    process = ServerProcess(fresh_env, ["serve", "--port", "0"], {})
    try:
        key = fresh_env.mint("online", "Ola")
        async with await IrohClient.connect(process.ticket) as client:
            assert (await client.join(key))[0]["type"] == "welcome"
    finally:
        process.stop()
