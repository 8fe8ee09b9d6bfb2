"""A room's hook scripts follow its packs on every process (`packs/hook_cache.py`): a
pack turned on or off in the room through one process is what the next roll on
another process hears, at once (docs/performance.md)."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve
from packs.tests.hook_table import TABLE_HOOKS, VARIABLES, build


async def _roll_narrated(client: WsClient) -> bool:
    """Roll; whether a hook narrated the roll. Turns in a room take turns, hooks
    included: the next roll's dice come after everything the first one brought."""
    await client.say(".r 1d6")
    await client.expect("dice")
    await client.say(".r 1d4")
    heard = await client.collect_until("dice")
    return any(f.get("speaker") == "kp" and "1d6" in f.get("text", "") for f in heard)


async def test_a_pack_turned_on_and_off_on_one_process_is_what_a_roll_on_another_hears(
    hosted_env, room, tmp_path
):
    built = build(tmp_path / "table-hooks", "table-hooks", TABLE_HOOKS, VARIABLES)
    assert hosted_env.manage("pack", "install", str(built), "--yes").returncode == 0
    here, there = start_serve(hosted_env, "--no-iroh"), start_serve(hosted_env, "--no-iroh")
    try:
        async with await WsClient.connect(here.ws_url) as kay, await WsClient.connect(there.ws_url) as pip:
            await kay.join(hosted_env.mint(room, "Kay", "keeper"))
            await pip.join(hosted_env.mint(room, "Pip"))
            await settle(pip)
            assert not await _roll_narrated(pip)  # the room's (empty) scripts are kept there now

            await kay.say(".panels enable table-hooks")
            await pip.expect("ui_manifest")  # the panels reached Pip's process
            assert await _roll_narrated(pip)

            await kay.say(".panels disable table-hooks")
            await pip.expect("ui_manifest")
            assert not await _roll_narrated(pip)
    finally:
        here.stop()
        there.stop()
