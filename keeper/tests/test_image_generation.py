"""Image generation through any OpenAI-compatible images API: `.avatar gen` draws the
caller's character and sets the portrait, the Keeper draws scenes for the table; each
drawing is the room's media, announced like an upload. The scripted provider answers
the images API with a real PNG (docs/decisions.md, "Image generation")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, settle, turn_shape, until_idle
from loreweaver.testing.fake_llm import Text, Tool
from loreweaver.testing.media_clients import get, sha

IMAGE_KEY = "sk-image-test-0000"


async def _joined(server, room: str, name: str, role: str = "player") -> tuple[WsClient, list[dict]]:
    client = await WsClient.connect(server.ws_url)
    return client, await client.join(server.env.mint(room, name, role))


async def test_without_an_endpoint_nothing_is_offered_and_avatar_gen_says_what_to_configure(server, room):
    client, joined = await _joined(server, room, "Ada")
    async with client:
        await client.say(".coc Ada")
        await client.expect("narrative", speaker="system")
        await client.say(".avatar gen")
        reply = await client.expect("narrative", speaker="system")
    assert "imagegen" not in joined[0]["features"]
    assert "TRPG_IMAGEGEN__PROVIDER" in reply["text"] and "image" in reply["text"]


async def test_the_keeper_is_not_offered_a_drawing_tool_before_an_endpoint_is_set(ai_server, llm, room):
    client, _joined_frames = await _joined(ai_server, room, "Ada")
    async with client:
        llm.script(Text("Quiet."))
        await client.say("I wait.")
        await until_idle(client)
    offered = [tool["function"]["name"] for tool in llm.chat_requests()[-1]["tools"]]
    assert "skill_check" in offered and "draw_image" not in offered


@pytest.fixture
async def drawing_server(ai_server, llm, room):
    """The AI server with its image endpoint set by a keeper (`admin_set_imagegen`)."""
    keeper, _frames = await _joined(ai_server, room, "Kay", "keeper")
    async with keeper:
        await keeper.send(
            {
                "type": "admin_set_imagegen",
                "provider": "openai",
                "base_url": llm.url,
                "model": "scripted-painter",
                "api_key": IMAGE_KEY,
                "size": "512x512",
            }
        )
        status = (await keeper.expect("admin_config"))["imagegen"]
    assert status["configured"] and IMAGE_KEY not in str(status)
    yield ai_server
    llm.image_answer = "b64_json"


@pytest.mark.parametrize("answer", ["b64_json", "url"])
async def test_avatar_gen_draws_the_character_and_sets_the_portrait(drawing_server, llm, room, answer):
    llm.image_answer = answer
    ada, joined = await _joined(drawing_server, room, "Ada")
    watcher, _frames = await _joined(drawing_server, room, "Wes")
    async with ada, watcher:
        assert "imagegen" in joined[0]["features"]
        await ada.say(".coc Ada")
        await ada.expect("narrative", speaker="system")
        await settle(ada)
        await settle(watcher)
        await ada.say(".avatar gen a scarred sailor")
        drawing = await ada.expect("narrative", speaker="system")
        announced = await watcher.expect("media")
        told = await watcher.expect("narrative", speaker="system")
        state = await ada.expect("state")
        while state.get("character", {}).get("avatar") is None:
            state = await ada.expect("state")
        header, body = await get(watcher, announced["hash"])
    assert "Drawing a portrait of Ada" in drawing["text"]
    assert announced["hash"] == sha(llm.picture) and announced["mime"] == "image/png"
    assert announced["name"] == "Ada portrait.png" and announced["from"] == "Ada"
    assert told["text"] == "Ada has a new portrait."
    assert state["character"]["avatar"]["hash"] == sha(llm.picture)
    assert body == llm.picture and header["mime"] == "image/png"
    asked = llm.image_requests()[-1]
    assert asked["model"] == "scripted-painter" and asked["size"] == "512x512"
    assert "Ada" in asked["prompt"] and "a scarred sailor" in asked["prompt"]
    assert asked["authorization"] == f"Bearer {IMAGE_KEY}"


async def test_the_keeper_draws_a_scene_that_arrives_like_an_upload(drawing_server, llm, room):
    llm.picture = llm.picture  # the same PNG: the room's index keeps one entry per file
    llm.script(
        Text("The fog parts. "),
        Tool("draw_image", {"description": "a lighthouse in fog at dusk", "title": "The lighthouse"}),
    )
    llm.script(Text("There it stands."))
    player, _frames = await _joined(drawing_server, room, "Pip")
    async with player:
        await player.say("I look out to sea.")
        frames = await until_idle(player)
    start = next(i for i, f in enumerate(frames) if f.get("text") == "I look out to sea.")
    assert turn_shape(frames[start:]) == [
        "narrative:player",
        "busy",
        "delta",
        "narrative:kp",
        "busy:cast:1",
        "media",
        "delta",
        "narrative:kp",
        "idle",
    ]
    media = next(f for f in frames if f["type"] == "media")
    assert media["name"] == "The lighthouse.png" and media["from"] == "Keeper"
    assert llm.image_requests()[-1]["prompt"] == "a lighthouse in fog at dusk"
    offered = [tool["function"]["name"] for tool in llm.chat_requests()[-2]["tools"]]
    assert "draw_image" in offered
    late, replay = await _joined(drawing_server, room, "Late")
    async with late:
        assert media in [f for f in replay if f["type"] == "media"], "the drawing is the room's history"


async def test_an_endpoint_that_fails_is_reported_and_nothing_is_stored(drawing_server, llm, room):
    llm.image_answer = "500"
    ada, _frames = await _joined(drawing_server, room, "Ada")
    async with ada:
        await ada.say(".dnd Ada")
        await ada.expect("narrative", speaker="system")
        await settle(ada)
        await ada.say(".avatar gen")
        await ada.expect("narrative", speaker="system")
        failed = await ada.expect("narrative", speaker="system")
        await ada.send({"type": "ping", "t": 3})
        rest = await ada.collect_until("pong")
    assert "did not draw it" in failed["text"]
    assert not [f for f in rest if f["type"] == "media"]


@pytest.mark.django_db
def test_the_environment_configures_the_endpoint_and_its_key_stays_with_it(settings):
    from keeper.llm import config

    assert not config.imagegen(None).configured, "nothing set: no image generation"
    settings.TRPG_IMAGEGEN_PROVIDER = "openai"
    settings.TRPG_IMAGEGEN_BASE_URL = "http://127.0.0.1:9/v1"
    settings.TRPG_IMAGEGEN_MODEL = "painter"
    settings.TRPG_IMAGEGEN_API_KEY = "sk-env-image-0000"
    from_env = config.imagegen(None)
    assert from_env.configured and from_env.api_key == "sk-env-image-0000" and from_env.size == "1024x1024"
    moved = config.configure_imagegen(None, "openai", "painter", base_url="http://elsewhere.example/v1")
    assert moved.api_key == "" and not moved.configured, "the environment's key is not sent elsewhere"
