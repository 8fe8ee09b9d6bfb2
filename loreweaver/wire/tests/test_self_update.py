"""`admin_update_server`: only the operator's
command runs; a failure reports its output; a success restarts the server on the same
WebSocket address and Iroh ticket, and clients reconnect with the same key."""

from __future__ import annotations

import asyncio

import pytest

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

FAILING = 'echo "fetching release"; echo "error: missing dependency" >&2; exit 1'
SUCCEEDING = 'echo updated >> "$TRPG_DATA_DIR/updates.log"; echo "now at the new release"'


@pytest.fixture
def updating_server(tmp_path, request):
    env = create_env(tmp_path / "table", hosted=hosted_profile())
    process = start_serve(env, TRPG_TUI__UPDATE_COMMAND=request.param)
    yield process
    process.stop()
    destroy_env(env)


async def test_without_a_command_there_is_no_update(server, room):
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
    async with await IrohClient.connect(updating_server.ticket) as keeper:
        await keeper.join(key)
        await keeper.send({"type": "admin_update_server"})
        reply = await keeper.expect("admin_update", timeout=30)
        assert reply["status"] == "restarting" and "new release" in reply["output"]
        await keeper.wait_closed(timeout=30)
    welcome = await _rejoin(lambda: WsClient.connect(updating_server.ws_url), key)
    assert welcome["type"] == "welcome" and welcome["you"]["name"] == "Kay"
    welcome = await _rejoin(lambda: IrohClient.connect(updating_server.ticket), key)
    assert welcome["type"] == "welcome"
    assert updating_server.pid == pid, "the process re-executed itself"
    assert (env.data_dir / "updates.log").read_text().splitlines() == ["updated"]
