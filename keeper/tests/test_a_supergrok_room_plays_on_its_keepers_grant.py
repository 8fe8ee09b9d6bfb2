"""A room signed in to SuperGrok: its Keeper answers through xAI's chat API with the
room's access token, renewed a minute before it expires, and once more when the
provider refuses it mid-turn (then the turn is tried again and the table never
notices) (docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

from keeper.tests.signing_in import Recording, private_line, sign_in, signing_table
from loreweaver.testing.clients import settle, until_idle
from loreweaver.testing.fake_llm import Status, Text

table = signing_table()


def _narration(frames: list[dict]) -> list[str]:
    return [f["text"] for f in frames if f["type"] == "narrative" and f.get("speaker") == "kp"]


async def test_the_keeper_answers_with_the_rooms_renewed_token(table, room):
    server, auth, xai = table
    env = server.env
    async with (
        await Recording.connect(server.ws_url) as keeper,
        await Recording.connect(server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        auth.token_lifetime = 30  # inside the minute: renewed before its first use
        await sign_in(keeper, auth, "supergrok")
        signed_with = auth.issued[-2]
        auth.token_lifetime = 3600
        await keeper.say(".model set supergrok grok-test")
        await private_line(keeper, "Switched")
        await settle(player)

        xai.script(Text("The storm answers."))
        await player.say("I open the door")
        assert _narration(await until_idle(player)) == ["The storm answers."]
        renewed = auth.issued[-2]
        assert renewed != signed_with
        asked = xai.chat_requests()[-1]
        assert asked["authorization"] == f"Bearer {renewed}" and asked["model"] == "grok-test"

        # The provider refuses the token mid-turn: renewed once, and asked again.
        xai.script(Status(401, "token expired"))
        xai.script(Text("The lamp flickers back."))
        await player.say("I wait")
        frames = await until_idle(player)
        assert _narration(frames) == ["The lamp flickers back."]
        assert not [f for f in frames if f["type"] == "system"], "the table never noticed"
        assert xai.chat_requests()[-1]["authorization"] == f"Bearer {auth.issued[-2]}"
        assert auth.issued[-2] != renewed
        await settle(keeper)

    everything = str(keeper.seen + player.seen)
    assert not any(token in everything for token in auth.issued)
    assert not any(token in server.log_text() for token in auth.issued)
