"""A keeper who changes the room's model in chat (`.model set`, `.model key`, `.model
reset`; a sign-in or sign-out does too) makes every keeper's client of the room, on
either carrier, get the room's `admin_config` unasked, as a client gets it after
saving on its own model screen (docs/decisions.md, "Keys and keeper administration"): the reference
terminal client's menu drops "Play sample adventure" once `using_demo` is false, and
the browser table drops its sample adventure card. A player is sent none."""

from __future__ import annotations

from loreweaver.testing.clients import connect, nothing_of_type, two_keepers_and_a_player


async def test_the_keepers_are_told_the_rooms_new_model_and_the_player_is_not(server, room):
    async with two_keepers_and_a_player(server, room) as (kay, kim, pat):
        await kay.say(".model set openai house-model")
        for keeper in (kay, kim):
            told = await keeper.expect("admin_config", timeout=20)
            assert (told["provider"], told["chat_model"]) == ("openai", "house-model")
            assert told["override_active"] is True and told["using_demo"] is True  # no key yet

        await kim.say(".model key sk-room-key-0000000000001234")
        for keeper in (kay, kim):
            told = await keeper.expect("admin_config", timeout=20)
            assert told["using_demo"] is False
            assert "0000000000001234" not in told["api_key_masked"]

        await kay.say(".model reset")
        for keeper in (kay, kim):
            told = await keeper.expect("admin_config", timeout=20)
            assert told["override_active"] is False and told["provider"] == "offline"

        await nothing_of_type(pat, "admin_config")


async def test_a_command_that_changes_nothing_sends_no_config(server, room):
    async with await connect("ws", server) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await kay.say(".model set nowhere")  # an unknown provider: refused, nothing changes
        refused = await kay.expect("narrative", speaker="system", timeout=20)
        assert "nowhere" not in refused["text"] and ".model set" in refused["text"]
        await nothing_of_type(kay, "admin_config")
