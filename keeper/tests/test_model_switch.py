"""`.model`: the provider catalog for everyone; a keeper switches the model, saves a key
and resets, with no restart. A key is only ever sent to the
endpoint it was saved for, and it is never echoed back."""

from __future__ import annotations

import pytest

from keeper.tests.test_ai_keeper_turn import settle
from loreweaver.testing.clients import WsClient
from loreweaver.testing.fake_llm import FakeLlm, Text
from loreweaver.testing.servers import dedicated_server

KEY = "sk-saved-for-the-first-endpoint-1234"


# No TRPG_LLM__*: the offline Keeper plays. The scripted providers listen on loopback,
# which rooms may use on the hosted profile only when the operator allows it.
offline_server = dedicated_server(TRPG_LLM__ALLOWED_ENDPOINTS="127.0.0.1")


@pytest.fixture
def two_providers():
    first, second = FakeLlm().start(), FakeLlm().start()
    yield first, second
    first.stop()
    second.stop()


async def _reply(client, line: str) -> str:
    await client.say(line)
    return (await client.expect("narrative", speaker="system"))["text"]


async def _answered(client, line: str) -> bool:
    """Whether a Keeper answered `line`: a turn_status between the line and the
    turn's closing `state`."""
    await client.say(line)
    await client.expect("narrative", speaker="player")
    frames = await client.collect_until("state", timeout=20)
    return any(f["type"] == "turn_status" for f in frames)


async def test_a_keeper_switches_models_live_and_keys_stay_with_their_endpoint(
    offline_server, two_providers, room
):
    first, second = two_providers
    env = offline_server.env
    async with (
        await WsClient.connect(offline_server.ws_url) as keeper,
        await WsClient.connect(offline_server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        catalog = await _reply(player, ".model")
        assert "offline" in catalog and "deepseek: https://api.deepseek.com/v1" in catalog
        assert "Only the keeper" in await _reply(player, f".model set openai x {first.url}")

        assert "Switched" in await _reply(keeper, f".model set openai scripted-keeper {first.url}")
        await keeper.say(f".model key {KEY}")
        echo = await keeper.expect("narrative", speaker="player")
        saved = await keeper.expect("narrative", speaker="system")
        assert KEY not in echo["text"] and KEY not in saved["text"] and "…1234" in saved["text"]
        await settle(player)

        first.script(Text("The first model speaks."))
        assert await _answered(player, "hello")
        assert first.chat_requests()[-1]["authorization"] == f"Bearer {KEY}"
        assert first.chat_requests()[-1]["model"] == "scripted-keeper"

        # Another endpoint: the saved key is not sent there, so no model is usable and
        # the offline Keeper answers instead.
        await _reply(keeper, f".model set openai other-model {second.url}")
        await settle(player)
        asked_first = len(first.requests)
        assert await _answered(player, "anyone there?")
        assert second.requests == [] and len(first.requests) == asked_first

        # Back to the first endpoint: its key is remembered.
        await _reply(keeper, f".model set openai scripted-keeper {first.url}")
        await settle(player)
        first.script(Text("Welcome back."))
        assert await _answered(player, "again")

        # The offline Keeper chosen on purpose, while a working model is configured.
        chose = await _reply(keeper, ".model set offline sample-adventure")
        assert "offline Keeper" in chose and "sample adventure" in chose
        await settle(player)
        asked_first = len(first.requests)
        assert await _answered(player, "who answers now?")
        assert len(first.requests) == asked_first, "the room's model is not asked"
        await _reply(keeper, f".model set openai scripted-keeper {first.url}")
        await settle(player)
        first.script(Text("The model is back."))
        assert await _answered(player, "and the model?") and len(first.requests) > asked_first

        assert "offline" in await _reply(keeper, ".model reset")
        await settle(player)
        asked_first = len(first.requests)
        assert await _answered(player, "and now?"), "the offline Keeper answers"
        assert len(first.requests) == asked_first
    assert all(KEY not in str(r) for r in second.requests)
