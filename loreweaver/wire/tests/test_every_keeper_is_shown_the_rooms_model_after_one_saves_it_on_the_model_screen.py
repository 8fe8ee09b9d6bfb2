"""A keeper who saves the room's model on a model screen (`admin_set_model`, or the
image model with `admin_set_imagegen`) is answered with the room's `admin_config`, and
every other keeper of the room, on either carrier, is sent it too, as after `.model
set` in chat (docs/decisions.md, "Keys and keeper administration"): the other keepers'
clients drop the sample adventure once the room has a model. The keeper who saved is
not sent it a second time, a player is sent none, and a refused change tells nobody
else."""

from __future__ import annotations

from loreweaver.testing.clients import ask, connect, nothing_of_type, two_keepers_and_a_player


def _model(config: dict) -> tuple:
    return config["provider"], config["chat_model"], config["using_demo"]


async def test_the_other_keepers_are_shown_the_model_one_keeper_saved(server, room):
    async with two_keepers_and_a_player(server, room) as (kay, kim, pat):
        saved = {
            "type": "admin_set_model",
            "provider": "openai",
            "chat_model": "house-model",
            "api_key": "sk-screen-key-0000000000005678",
        }
        answer = await ask(kay, saved, "admin_config")
        assert _model(answer) == ("openai", "house-model", False)
        told = await kim.expect("admin_config", timeout=20)
        assert _model(told) == ("openai", "house-model", False)
        assert "0000000000005678" not in str(told)

        await nothing_of_type(pat, "admin_config")
        # The keeper who saved has it as the reply: a second copy could be taken for
        # the reply to its next request.
        await nothing_of_type(kay, "admin_config")


async def test_a_refused_model_is_told_to_its_keeper_alone(server, room):
    async with await connect("ws", server) as kay, await connect("ws", server) as kim:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await kim.join(server.env.mint(room, "Kim", "keeper"))
        refused = await ask(kay, {"type": "admin_set_model", "provider": "nowhere"}, "admin_error")
        assert refused["type"] == "admin_error"
        await nothing_of_type(kim, "admin_config")
