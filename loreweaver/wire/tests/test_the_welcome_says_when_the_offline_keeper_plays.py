"""The welcome names `offline_keeper` among its features while no usable model is
configured for the room (an addition to protocol 2.3's features), to every member, so
a client can sign the narration as the offline Keeper's rather than an AI's; a room
given a model is welcomed without it."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, ask


def _features(frames: list[dict]) -> list[str]:
    return next(f for f in frames if f["type"] == "welcome")["features"]


async def test_the_welcome_says_when_the_offline_keeper_plays(server, room):
    async with await WsClient.connect(server.ws_url) as keeper, await WsClient.connect(server.ws_url) as pip:
        assert "offline_keeper" in _features(await keeper.join(server.env.mint(room, "Kay", "keeper")))
        assert "offline_keeper" in _features(await pip.join(server.env.mint(room, "Pip")))
        model = {"provider": "deepseek", "chat_model": "deepseek-chat", "api_key": "sk-test"}
        chosen = await ask(keeper, {"type": "admin_set_model", **model}, "admin_config")
        assert chosen["using_demo"] is False
    async with await WsClient.connect(server.ws_url) as pip:
        assert "offline_keeper" not in _features(await pip.join(server.env.mint(room, "Pip")))
