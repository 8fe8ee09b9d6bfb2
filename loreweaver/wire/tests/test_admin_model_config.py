"""Model configuration from the client: `admin_get_config`,
`admin_set_model`, `admin_set_imagegen`, `admin_list_models`. Keys are masked in
every reply, and a key saved for one endpoint is never sent to another, through
set_model, list_models previews and provider switches."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient
from loreweaver.testing.fake_llm import FakeLlm, Text
from loreweaver.testing.servers import dedicated_server, start_serve

KEY_A = "sk-endpoint-a-0000000000000aaaa"
KEY_B = "sk-endpoint-b-0000000000000bbbb"


# A server of its own (the scripted endpoints listen on loopback: allowed for rooms here).
own_server = dedicated_server(TRPG_LLM__ALLOWED_ENDPOINTS="127.0.0.1")


@pytest.fixture
def endpoints():
    a, b = FakeLlm(models=["alpha-large", "alpha-small"]).start(), FakeLlm(models=["beta"]).start()
    yield a, b
    a.stop()
    b.stop()


async def _ask(client, frame: dict, reply: str) -> dict:
    await client.send(frame)
    return await client.expect(reply, timeout=20)


def _keys_seen(fake: FakeLlm) -> set[str]:
    return {r.get("authorization") or "" for r in fake.requests}


async def test_keys_stay_with_their_endpoint_and_are_never_shown(own_server, endpoints, room):
    a, b = endpoints
    async with await WsClient.connect(own_server.ws_url) as keeper:
        await keeper.join(own_server.env.mint(room, "Kay", "keeper"))
        config = await _ask(keeper, {"type": "admin_get_config"}, "admin_config")
        assert config["using_demo"] is True and config["override_active"] is False
        # With no model, the screen names the offline Keeper rather than blank fields.
        assert (config["provider"], config["chat_model"]) == ("offline", "sample-keeper")
        assert "deepseek" in config["providers"] and config["saved_providers"] == []

        config = await _ask(
            keeper,
            {
                "type": "admin_set_model",
                "provider": "openai",
                "chat_model": "alpha-large",
                "base_url": a.url,
                "api_key": KEY_A,
            },
            "admin_config",
        )
        assert (config["provider"], config["chat_model"], config["base_url"]) == (
            "openai",
            "alpha-large",
            a.url,
        )
        assert config["api_key_masked"].endswith("aaaa") and KEY_A not in str(config)
        assert (
            config["using_demo"] is False
            and config["override_active"]
            and config["saved_providers"] == ["openai"]
        )

        models = await _ask(keeper, {"type": "admin_list_models"}, "admin_models")
        assert models["provider"] == "openai" and models["models"] == ["alpha-large", "alpha-small"]
        assert _keys_seen(a) == {f"Bearer {KEY_A}"}

        # Previewing another endpoint never borrows the saved key.
        preview = await _ask(
            keeper, {"type": "admin_list_models", "provider": "openai", "base_url": b.url}, "admin_models"
        )
        assert preview["models"] == [] and b.requests == []
        preview = await _ask(
            keeper,
            {"type": "admin_list_models", "provider": "openai", "base_url": b.url, "api_key": KEY_B},
            "admin_models",
        )
        assert preview["models"] == ["beta"] and _keys_seen(b) == {f"Bearer {KEY_B}"}

        # A new endpoint without a new key: the old key stays behind, no model is usable.
        config = await _ask(
            keeper, {"type": "admin_set_model", "provider": "openai", "base_url": b.url}, "admin_config"
        )
        assert config["base_url"] == b.url and config["api_key_masked"] == "" and config["using_demo"] is True
        assert config["chat_model"] == "alpha-large", "the model stays while the provider does"
        await keeper.say("Is anyone there?")
        await keeper.expect("state")
        assert KEY_A not in str(b.requests) and not b.chat_requests()

        # Another provider, then back to the first endpoint: its key is remembered.
        await _ask(keeper, {"type": "admin_set_model", "provider": "deepseek"}, "admin_config")
        back = {
            "type": "admin_set_model",
            "provider": "openai",
            "base_url": a.url,
            "chat_model": "alpha-large",
        }
        config = await _ask(keeper, back, "admin_config")
        assert config["api_key_masked"].endswith("aaaa") and config["using_demo"] is False
        a.script(Text("The model answers."))
        await keeper.say("Hello?")
        await keeper.expect("turn_status", status="idle", timeout=20)
        assert a.chat_requests()[-1]["authorization"] == f"Bearer {KEY_A}"
        assert a.chat_requests()[-1]["model"] == "alpha-large"

        # An explicit empty key clears it.
        config = await _ask(
            keeper, {"type": "admin_set_model", "provider": "openai", "api_key": ""}, "admin_config"
        )
        assert config["api_key_masked"] == "" and config["using_demo"] is True

        image = await _ask(
            keeper,
            {
                "type": "admin_set_imagegen",
                "provider": "openai",
                "model": "paint-1",
                "base_url": b.url,
                "api_key": KEY_B,
                "size": "512x512",
            },
            "admin_config",
        )
        status = image["imagegen"]
        assert (status["model"], status["size"], status["has_key"], status["configured"]) == (
            "paint-1",
            "512x512",
            True,
            True,
        )
        assert KEY_B not in str(image) and status["api_key_masked"].endswith("bbbb")

        unknown = await _ask(keeper, {"type": "admin_set_model", "provider": "nonesuch"}, "admin_error")
        assert unknown["code"] == "unknown_provider" and "deepseek" in unknown["message"]
    assert KEY_A not in str(b.requests) and KEY_B not in str(a.requests)


async def test_the_configuration_survives_a_restart(fresh_env, endpoints, room):
    a, _ = endpoints
    first = start_serve(fresh_env, TRPG_LLM__ALLOWED_ENDPOINTS="127.0.0.1")
    try:
        async with await WsClient.connect(first.ws_url) as keeper:
            await keeper.join(fresh_env.mint(room, "Kay", "keeper"))
            await _ask(
                keeper,
                {
                    "type": "admin_set_model",
                    "provider": "openai",
                    "chat_model": "kept",
                    "base_url": a.url,
                    "api_key": KEY_A,
                },
                "admin_config",
            )
    finally:
        first.stop()
    again = start_serve(fresh_env, TRPG_LLM__ALLOWED_ENDPOINTS="127.0.0.1")
    try:
        async with await WsClient.connect(again.ws_url) as keeper:
            await keeper.join(fresh_env.mint(room, "Kim", "keeper"))
            config = await _ask(keeper, {"type": "admin_get_config"}, "admin_config")
    finally:
        again.stop()
    assert (config["chat_model"], config["base_url"]) == ("kept", a.url)
    assert config["api_key_masked"].endswith("aaaa") and config["using_demo"] is False
