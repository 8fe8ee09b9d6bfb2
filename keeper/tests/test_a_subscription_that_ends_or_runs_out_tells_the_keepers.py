"""A room's subscription that is spent or whose sign-in ends: the turn fails as a
failing model does (players read that the Keeper is unavailable), the keepers read
why, the usage limit or the sign-in ended, and a renewal the provider refuses leaves
the room `logged_out` (docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

from keeper.tests.signing_in import signed_in_room, signing_table, told
from loreweaver.testing.clients import until_idle
from loreweaver.testing.fake_llm import Status

table = signing_table()


def _system(frames: list[dict]) -> list[str]:
    return [f["text"] for f in frames if f["type"] == "system"]


async def test_a_spent_or_ended_subscription_is_named_to_the_keepers(table, room):
    server, auth, xai = table
    async with signed_in_room(server, room, auth, "supergrok") as (keeper, player):
        xai.script(Status(429, "usage_limit: the weekly allowance is spent"))
        await player.say("I search the desk")
        told_player = told(await until_idle(player))
        told_keeper = _system(await until_idle(keeper))
        assert len(told_player) == 1 and "unavailable" in told_player[0]
        assert any("usage limit" in text for text in told_keeper)
        assert not any("usage limit" in text for text in told_player)

        # The token is refused and so is its renewal: the sign-in has ended.
        auth.refuse_refresh = True
        xai.script(Status(401, "token revoked"))
        await player.say("I search again")
        await until_idle(player)
        told_keeper = _system(await until_idle(keeper))
        assert any("logged out" in text and ".model login supergrok" in text for text in told_keeper)
        auth.refuse_refresh = False

        await keeper.send({"type": "admin_get_config"})
        assert (await keeper.expect("admin_config"))["subscription_status"] == "logged_out"
        asked = len(xai.chat_requests())
        await player.say("anyone?")
        await until_idle(player)
        assert len(xai.chat_requests()) == asked, "no grant: the offline Keeper answers"
