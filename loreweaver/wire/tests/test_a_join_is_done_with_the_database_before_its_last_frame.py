"""A join reads everything it needs from the database before it sends its last frame
(`ui_manifest`, docs/decisions.md): a client that starts playing once it has it, or a
database fault that comes right after (Postgres dropping its connections), never meets
a join still reading, so a member shown a finished join is never dropped by it after.
The join's last read (whether a human keeper narrates) fails once here
(`TRPG_FAILPOINTS`, docs/operations.md, "Fault injection (tests only)")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve


@pytest.fixture(scope="module")
def failing_at_the_last_read(tmp_path_factory):
    env = create_env(tmp_path_factory.mktemp("last-read"), hosted=hosted_profile())
    process = start_serve(env, TRPG_FAILPOINTS="join.rule*1")
    yield process
    process.stop()
    destroy_env(env)


async def test_a_join_that_fails_at_its_last_read_never_looked_finished(failing_at_the_last_read, room):
    server = failing_at_the_last_read
    async with await WsClient.connect(server.ws_url) as unlucky:
        await unlucky.send({"type": "join", "key": server.env.mint(room, "Unlucky")})
        frames = await unlucky.wait_closed()

    assert [(f["type"], f.get("code")) for f in frames if f["type"] == "error"] == [("error", "server_error")]
    assert "ui_manifest" not in [f["type"] for f in frames]

    async with await WsClient.connect(server.ws_url) as next_one:
        joined = await next_one.join(server.env.mint(room, "Next"))
        assert joined[-1]["type"] == "ui_manifest"
