"""`.model login chatgpt`: the keeper alone is shown where to enter which code, the
server waits for the approval at the provider's pace (slowing down when asked), a
second login while one is under way shows the same code, and the room then reads
`logged_in` (docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

import re

from keeper.tests.signing_in import Recording, private_line, signing_table

table = signing_table()


async def _config(keeper) -> dict:
    await keeper.send({"type": "admin_get_config"})
    return await keeper.expect("admin_config")


async def test_a_keeper_signs_the_room_in_and_only_they_see_the_code(table, room):
    server, auth, _xai = table
    env = server.env
    async with (
        await Recording.connect(server.ws_url) as keeper,
        await Recording.connect(server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))

        await keeper.say(".model set chatgpt")
        assert "not signed in" in await private_line(keeper, "Switched")
        assert (await _config(keeper))["subscription_status"] == "logged_out"

        await player.say(".model login chatgpt")
        assert "Only the keeper" in await private_line(player, "keeper")

        auth.script("pending", "slow_down", "pending", "approve")
        await keeper.say(".model login chatgpt")
        shown = await private_line(keeper, "enter the code")
        code = re.search(r"code (CHAT-\w+)", shown).group(1)
        assert f"{auth.url}/codex/device" in shown

        # Asked again while the first is under way: the same code, no new one.
        await keeper.say(".model login chatgpt")
        assert code in await private_line(keeper, "enter the code")
        assert auth.count("/api/accounts/deviceauth/usercode") == 1

        done = await private_line(keeper, "Signed in to chatgpt", timeout=30)
        assert "this room" in done and "plays on it now" in done, "chosen before: no need to choose it again"
        polls = auth.polls()
        assert len(polls) == 4
        # After `slow_down` every poll waits five seconds more than the pace it had.
        assert polls[2] - polls[1] >= 5.5 and polls[3] - polls[2] >= 5.5
        config = await _config(keeper)
        assert config["subscription_status"] == "logged_in"
        # When the sign-in's access runs out, as the reference terminal client shows it.
        assert re.fullmatch(r"sub:\d{4}-\d\d-\d\dT\d\d:\d\dZ", config["api_key_masked"]), config
        await keeper.say(".model")
        assert "signed in" in await private_line(keeper, "Model:")
        await player.say(".model")  # read everything the player was sent until now
        await private_line(player, "Model:")

    told_player = " ".join(str(frame) for frame in player.seen)
    assert code not in told_player and "Signed in" not in told_player
    everything = " ".join(str(frame) for frame in keeper.seen + player.seen)
    assert auth.issued and not any(token in everything for token in auth.issued)
