"""`admin_update_server`: updating the server is the operator's, so a room keeper is
refused unless the operator allowed it (`TRPG_ALLOW_REMOTE_UPDATE`); only the
operator's command runs; a failure reports its output; a success drains like SIGTERM
(members are told the server is restarting) and restarts the server on the same
WebSocket address and Iroh ticket, and clients reconnect with the same key."""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import create_env, dedicated_server, destroy_env, hosted_profile, start_serve

FAILING = 'echo "fetching release"; echo "error: missing dependency" >&2; exit 1'
SUCCEEDING = 'echo updated >> "$TRPG_DATA_DIR/updates.log"; echo "now at the new release"'


@pytest.fixture
def updating_server(tmp_path, request):
    env = create_env(tmp_path / "table", hosted=hosted_profile())
    process = start_serve(env, TRPG_TUI__UPDATE_COMMAND=request.param, TRPG_ALLOW_REMOTE_UPDATE="1")
    yield process
    process.stop()
    destroy_env(env)


# The operator set an update command but did not let room keepers run it.
command_only = dedicated_server(TRPG_TUI__UPDATE_COMMAND=SUCCEEDING)
# The operator let room keepers update, but set no command.
allowed_without_command = dedicated_server(TRPG_ALLOW_REMOTE_UPDATE="1")


async def test_a_room_keeper_cannot_update_the_server_unless_the_operator_allows_it(command_only, room):
    env = command_only.env
    async with await WsClient.connect(command_only.ws_url) as keeper:
        welcome = (await keeper.join(env.mint(room, "Kay", "keeper")))[0]
        assert "update" not in welcome["features"]
        for _attempt in range(2):
            await keeper.send({"type": "admin_update_server"})
            error = await keeper.expect("admin_error")
            assert error["code"] == "forbidden" and "TRPG_ALLOW_REMOTE_UPDATE" in error["message"]
        await keeper.send({"type": "ping", "t": 3})
        assert (await keeper.expect("pong"))["t"] == 3, "nothing restarted"
    assert not (env.data_dir / "updates.log").exists(), "the command never ran"


async def test_without_a_command_there_is_no_update(allowed_without_command, room):
    server = allowed_without_command
    async with await WsClient.connect(server.ws_url) as keeper:
        welcome = (await keeper.join(server.env.mint(room, "Kay", "keeper")))[0]
        assert "update" not in welcome["features"]
        await keeper.send({"type": "admin_update_server"})
        error = await keeper.expect("admin_error")
    assert error["code"] == "not_configured" and "TRPG_TUI__UPDATE_COMMAND" in error["message"]


@pytest.mark.parametrize("updating_server", [FAILING], indirect=True)
async def test_a_failing_update_reports_its_output_and_nothing_restarts(updating_server, room):
    env = updating_server.env
    async with await WsClient.connect(updating_server.ws_url) as keeper:
        welcome = (await keeper.join(env.mint(room, "Kay", "keeper")))[0]
        assert "update" in welcome["features"]
        await keeper.send({"type": "admin_update_server"})
        reply = await keeper.expect("admin_update", timeout=30)
        assert reply["status"] == "failed"
        assert "fetching release" in reply["output"] and "missing dependency" in reply["output"]
        await keeper.send({"type": "ping", "t": 7})
        assert (await keeper.expect("pong"))["t"] == 7, "the server keeps running"
    async with await WsClient.connect(updating_server.ws_url) as player:
        welcome = (await player.join(env.mint(room, "Pat")))[0]
    assert "update" not in welcome["features"], "the feature is for keepers only"


async def _rejoin(connect, key: str, deadline: float = 30.0) -> dict:
    """Connect and join, retrying while the server comes back."""
    loop = asyncio.get_running_loop()
    stop = loop.time() + deadline
    while True:
        try:
            async with await connect() as client:
                return (await client.join(key))[0]
        except Exception:  # refused, reset or closed while the server restarts
            if loop.time() > stop:
                raise
            await asyncio.sleep(0.2)


@pytest.mark.parametrize("updating_server", [SUCCEEDING], indirect=True)
async def test_a_successful_update_restarts_on_the_same_addresses(updating_server, room):
    env = updating_server.env
    key = env.mint(room, "Kay", "keeper")
    pid = updating_server.pid
    async with (
        await IrohClient.connect(updating_server.ticket) as keeper,
        await WsClient.connect(updating_server.ws_url) as player,
    ):
        await keeper.join(key)
        await player.join(env.mint(room, "Pat"))
        await keeper.send({"type": "admin_update_server"})
        reply = await keeper.expect("admin_update", timeout=30)
        assert reply["status"] == "restarting" and "new release" in reply["output"]
        await keeper.wait_closed(timeout=30)
        # Every member is sent away as SIGTERM would: told why, with the close that
        # means "come back".
        frames = await player.wait_closed(timeout=30)
        goodbye = [f for f in frames if f["type"] == "system" and "restarting" in f.get("text", "")]
        assert goodbye, frames
        assert player.close_code == 1012
    welcome = await _rejoin(lambda: WsClient.connect(updating_server.ws_url), key)
    assert welcome["type"] == "welcome" and welcome["you"]["name"] == "Kay"
    welcome = await _rejoin(lambda: IrohClient.connect(updating_server.ticket), key)
    assert welcome["type"] == "welcome"
    assert updating_server.pid == pid, "the process re-executed itself"
    assert (env.data_dir / "updates.log").read_text().splitlines() == ["updated"]
