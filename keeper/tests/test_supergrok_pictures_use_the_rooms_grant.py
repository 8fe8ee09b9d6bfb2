"""A room signed in to SuperGrok draws its pictures with the same grant: the image
endpoint is xAI's, the bearer is the room's token, and the model screen says
pictures are configured without showing the token, not even masked
(docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

from keeper.tests.signing_in import Recording, private_line, sign_in, signing_table
from loreweaver.testing.clients import settle, until_idle
from loreweaver.testing.fake_llm import Text, Tool

table = signing_table()


async def test_the_keeper_draws_a_scene_on_the_rooms_supergrok_grant(table, room):
    server, auth, xai = table
    async with await Recording.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await keeper.send(
            {"type": "admin_set_imagegen", "provider": "supergrok", "model": "grok-imagine-image"}
        )
        before = (await keeper.expect("admin_config"))["imagegen"]
        assert before["configured"] is False, "not signed in yet"

        await sign_in(keeper, auth, "supergrok")
        await keeper.send({"type": "admin_get_config"})
        pictures = (await keeper.expect("admin_config"))["imagegen"]
        assert pictures["configured"] is True and pictures["provider"] == "supergrok"
        assert pictures["api_key_masked"] == "" and pictures["base_url"] == xai.url
        await keeper.say(".model set supergrok")
        await private_line(keeper, "Switched")
        await settle(keeper)

        xai.script(
            Text("The fog parts. "), Tool("draw_image", {"description": "a lighthouse", "title": "Light"})
        )
        xai.script(Text("There it stands."))
        await keeper.say("I look out to sea.")
        frames = await until_idle(keeper)
        assert any(f["type"] == "media" for f in frames)
        asked = xai.image_requests()[-1]
        assert asked["model"] == "grok-imagine-image" and asked["prompt"] == "a lighthouse"
        assert asked["authorization"] == f"Bearer {auth.issued[-2]}"
        await settle(keeper)
    assert not any(token in str(keeper.seen) for token in auth.issued)
