"""A roll that finds the SQLite database held by another writer (here the test itself,
another process, in the middle of a transaction) waits for it on the database thread,
never on the event loop (docs/architecture.md, "A frame's way"): meanwhile the
table is still answered (a ping, the next roller's queued notice), and once the writer
is done both rolls are answered, in the order they were sent."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import hosted_profile


@pytest.mark.skipif(hosted_profile(), reason="the writer holds an SQLite file")
async def test_a_roll_waits_for_the_writer_and_the_table_is_answered_meanwhile(server, room):
    async with (
        await WsClient.connect(server.ws_url) as first,
        await WsClient.connect(server.ws_url) as second,
    ):
        await first.join(server.env.mint(room, "Ann"))
        await second.join(server.env.mint(room, "Bo"))
        writer = sqlite3.connect(server.env.data_dir / "db.sqlite3", isolation_level=None, timeout=10)
        with contextlib.closing(writer):
            writer.execute("BEGIN IMMEDIATE")  # SQLite's write lock, until the COMMIT below
            try:
                await first.say(".r 1d6")
                await second.say(".r 1d6")
                queued = await second.collect_until("system")
                assert "queued" in queued[-1]["text"]
                await second.send({"type": "ping", "t": 7})
                meanwhile = queued + await second.collect_until("pong")
                assert not [frame for frame in meanwhile if frame["type"] == "dice"], (
                    "no roll is answered while the writer holds the database"
                )
            finally:
                writer.execute("COMMIT")
        assert (await first.expect("dice"))["actor"] == "Ann"
        rolls = [frame["actor"] for frame in await second.collect_until("state") if frame["type"] == "dice"]
        rolls += [(await second.expect("dice"))["actor"]]
        assert rolls == ["Ann", "Bo"]
