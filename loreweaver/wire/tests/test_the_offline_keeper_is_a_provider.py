"""The offline Keeper is a provider like the others in every admin frame: listed in
`admin_config`, its models answered by `admin_list_models` (with or without naming it),
chosen with `admin_set_model`; its `sample-adventure` model offers the sample adventure
to the room's keepers until a module begins (docs/decisions.md, "The offline Keeper and
the sample adventure")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, ask, until_idle

OFFLINE_MODELS = ["sample-keeper", "sample-adventure"]


def _features(frames: list[dict]) -> list[str]:
    return next(f for f in frames if f["type"] == "welcome")["features"]


async def test_the_model_screen_finds_the_offline_provider_and_its_models(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        config = await ask(keeper, {"type": "admin_get_config"}, "admin_config")
        assert config["provider"] == "offline" and "offline" in config["providers"]
        assert "deepseek" in config["providers"]
        # What the terminal client's Model screen asks each time it opens.
        named = await ask(keeper, {"type": "admin_list_models", "provider": "offline"}, "admin_models")
        assert (named["provider"], named["models"]) == ("offline", OFFLINE_MODELS)
        unnamed = await ask(keeper, {"type": "admin_list_models"}, "admin_models")
        assert (unnamed["provider"], unnamed["models"]) == ("offline", OFFLINE_MODELS)
        refused = await ask(keeper, {"type": "admin_list_models", "provider": "nope-9000"}, "admin_error")
        assert refused["code"] == "unknown_provider" and "offline" in refused["message"]


async def test_choosing_the_sample_adventure_offers_it_after_the_room_has_begun(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await keeper.say("hello, is anyone here?")
        await until_idle(keeper)
    async with await WsClient.connect(server.ws_url) as keeper:
        assert "demo" not in _features(await keeper.join(server.env.mint(room, "Kay", "keeper")))
        chosen = await ask(
            keeper,
            {"type": "admin_set_model", "provider": "offline", "chat_model": "sample-adventure"},
            "admin_config",
        )
        assert (chosen["provider"], chosen["chat_model"], chosen["using_demo"]) == (
            "offline",
            "sample-adventure",
            True,
        )
    async with await WsClient.connect(server.ws_url) as keeper, await WsClient.connect(server.ws_url) as pip:
        assert "demo" in _features(await keeper.join(server.env.mint(room, "Kay", "keeper")))
        assert "demo" not in _features(await pip.join(server.env.mint(room, "Pip")))
        await keeper.say("Start the built-in sample adventure")
        await until_idle(keeper)
    async with await WsClient.connect(server.ws_url) as keeper:
        joined = await keeper.join(server.env.mint(room, "Kay", "keeper"))
        assert "demo" not in _features(joined), "a module has begun: nothing more to offer"
