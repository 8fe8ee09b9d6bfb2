"""A SuperGrok sign-in (xAI's device flow) that the keeper refuses, whose code
expires, or that nobody approves in time: each ends with one private line to that
keeper, nothing is kept, and the room stays `logged_out` (docs/operations.md,
"Signing in with a subscription")."""

from __future__ import annotations

from keeper.tests.signing_in import private_line, signing_table
from loreweaver.testing.clients import WsClient

table = signing_table()


async def _status(keeper) -> str:
    await keeper.send({"type": "admin_get_config"})
    return (await keeper.expect("admin_config"))["subscription_status"]


async def test_refused_expired_and_unanswered_sign_ins_each_say_so(table, room):
    server, auth, _xai = table
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await keeper.say(".model set supergrok")
        await private_line(keeper, "Switched")

        auth.script("pending", "denied")
        await keeper.say(".model login supergrok")
        assert f"{auth.url}/device" in await private_line(keeper, "enter the code")
        assert "was refused" in await private_line(keeper, "supergrok sign-in", timeout=20)
        assert await _status(keeper) == "logged_out"

        auth.script("expired")
        await keeper.say(".model login supergrok")
        await private_line(keeper, "enter the code")
        assert "expired" in await private_line(keeper, "supergrok sign-in", timeout=20)

        # Nobody approves, and the code's lifetime runs out while it is pending.
        auth.expires_in = 3
        await keeper.say(".model login supergrok")
        await private_line(keeper, "enter the code")
        assert "not approved in time" in await private_line(keeper, "supergrok sign-in", timeout=20)
        auth.expires_in = 600

        assert await _status(keeper) == "logged_out"
        await keeper.say(".model")
        assert "not signed in" in await private_line(keeper, "Model:")
        # Each sign-in asked for its own code: none was left under way.
        assert auth.count("/oauth2/device/code") == 3
