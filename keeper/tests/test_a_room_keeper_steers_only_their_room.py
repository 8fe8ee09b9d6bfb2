"""A room's keeper steers only their room (docs/operations.md, "Tenancy: what a room
keeper can and cannot change"): the keeper of room B who points B's Keeper at an
endpoint of their choosing cannot make room A's lines reach it, nor change A's model
or key. Room A goes on with the operator's model, with the operator's key."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, ask, settle, system_answer, until_idle
from loreweaver.testing.fake_llm import FakeLlm, Text
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, keeper_model, start_serve

OPERATOR_KEY = "sk-test-scripted-0000"
ROOM_B_KEY = "sk-room-b-only-000000000bbbb"


@pytest.fixture
def two_listeners():
    operators, chosen_by_b = FakeLlm().start(), FakeLlm().start()
    yield operators, chosen_by_b
    operators.stop()
    chosen_by_b.stop()


@pytest.fixture
def table(tmp_path, two_listeners):
    """The operator's model is the first listener; the operator lets rooms use the
    second (it listens on loopback, which a hosted server keeps from rooms otherwise)."""
    operators, chosen_by_b = two_listeners
    env = create_env(tmp_path / "table", hosted=hosted_profile())
    port = chosen_by_b.url.split("//", 1)[1].split("/", 1)[0]
    process = start_serve(env, **keeper_model(operators.url, TRPG_LLM__ALLOWED_ENDPOINTS=port))
    yield process
    process.stop()
    destroy_env(env)


async def test_room_b_cannot_send_room_as_lines_to_an_endpoint_b_chose(table, two_listeners, room):
    operators, chosen_by_b = two_listeners
    env, room_b = table.env, room + "-b"
    async with (
        await WsClient.connect(table.ws_url) as keeper_a,
        await WsClient.connect(table.ws_url) as player_a,
        await WsClient.connect(table.ws_url) as keeper_b,
    ):
        await keeper_a.join(env.mint(room, "Ann", "keeper"))
        await player_a.join(env.mint(room, "Pat"))
        await keeper_b.join(env.mint(room_b, "Bea", "keeper"))

        switched = await system_answer(keeper_b, f".model set openai b-model {chosen_by_b.url}")
        assert "Switched (this room only)" in switched and "openai has no key yet" in switched
        await keeper_b.say(f".model key {ROOM_B_KEY}")
        saved = await keeper_b.expect("narrative", speaker="system")
        assert "this room" in saved["text"] and chosen_by_b.url in saved["text"]
        config_b = await ask(
            keeper_b,
            {
                "type": "admin_set_model",
                "provider": "openai",
                "chat_model": "b-model",
                "base_url": chosen_by_b.url,
            },
            "admin_config",
        )
        assert config_b["base_url"] == chosen_by_b.url and config_b["override_active"] is True
        assert config_b["api_key_masked"].endswith("bbbb")

        # Room A still has the operator's model and key, and says it made no choice.
        config_a = await ask(keeper_a, {"type": "admin_get_config"}, "admin_config")
        assert (config_a["provider"], config_a["chat_model"], config_a["base_url"]) == (
            "openai",
            "scripted-keeper",
            operators.url,
        )
        assert config_a["override_active"] is False and config_a["api_key_masked"].endswith("0000")
        assert "scripted-keeper" in await system_answer(player_a, ".model")
        await settle(keeper_a)

        operators.script(Text("The lamp gutters in room A."))
        await player_a.say("I light the lamp in room A.")
        answered = await until_idle(player_a)
        assert "The lamp gutters in room A." in str(answered), "answered by the operator's model"
        asked = operators.chat_requests()[-1]
        assert asked["authorization"] == f"Bearer {OPERATOR_KEY}" and asked["model"] == "scripted-keeper"
        assert "I light the lamp in room A." in str(asked["messages"])
        assert chosen_by_b.requests == [], "nothing of room A reached B's endpoint"

        # B's own lines do go to B's endpoint, with B's key.
        chosen_by_b.script(Text("Room B's model answers."))
        await settle(keeper_b)
        await keeper_b.say("A line in room B.")
        await until_idle(keeper_b)
        assert chosen_by_b.chat_requests()[-1]["authorization"] == f"Bearer {ROOM_B_KEY}"
        assert "room A" not in str(chosen_by_b.requests), "not a word of room A's story"

        # B's key is B's: room A choosing the same endpoint does not get it.
        await settle(keeper_a)
        preview = await ask(
            keeper_a,
            {"type": "admin_list_models", "provider": "openai", "base_url": chosen_by_b.url},
            "admin_models",
        )
        assert preview["models"] == []
        assert all(r.get("authorization") in (None, "", f"Bearer {ROOM_B_KEY}") for r in chosen_by_b.requests)
        assert ROOM_B_KEY not in str(operators.requests)

        # B going back to the server's model changes nothing for A either.
        assert "scripted-keeper" in await system_answer(keeper_b, ".model reset")
        config_a = await ask(keeper_a, {"type": "admin_get_config"}, "admin_config")
        assert config_a["base_url"] == operators.url and config_a["override_active"] is False
