"""A room signed in to ChatGPT: the Keeper's turn goes to the subscription's Responses
API, streamed, through the openai SDK, with the room's token and account; tool rounds
and NPC voices work as on any provider; a 401 mid-turn renews the token and tries
again; a spent allowance is named to the keepers (docs/operations.md, "Signing in
with a subscription")."""

from __future__ import annotations

from keeper.tests.signing_in import private_line, sign_in, signed_in_room, signing_table, told
from loreweaver.testing.clients import WsClient, settle, until_idle
from loreweaver.testing.fake_llm import Status, Text, Tool

table = signing_table(chatgpt=True)


def _kinds(frames: list[dict]) -> list[tuple[str, str]]:
    return [
        (f.get("speaker", ""), f["text"])
        for f in frames
        if f["type"] == "narrative" and f.get("speaker") in ("kp", "npc")
    ]


async def test_a_turn_streams_runs_tools_and_voices_an_npc(table, room):
    server, auth, chatgpt = table
    async with signed_in_room(server, room, auth, "chatgpt gpt-test") as (keeper, player):
        await keeper.say(".npc add Silas | the lighthouse keeper | he hears a bell")
        await private_line(keeper, "Silas")
        await settle(player)

        chatgpt.script(
            Text("The door "), Text("creaks. "), Tool("speak_as_npc", {"npc": "Silas", "direction": "warn"})
        )
        chatgpt.script(Text("Go back before the tide turns."))
        chatgpt.script(Text("He points at the stairs."))
        await player.say("I open the door")
        frames = await until_idle(player)
        assert _kinds(frames) == [
            ("kp", "The door creaks."),
            ("npc", "Go back before the tide turns."),
            ("kp", "He points at the stairs."),
        ]
        assert any(f["type"] == "narrative_delta" for f in frames), "narration streams"
        first, _voice, second = chatgpt.requests[-3:]
        token = auth.issued[-2]
        for asked in (first, second):
            assert asked["path"].endswith("/backend-api/codex/responses") and asked["stream"] is True
            assert asked["authorization"] == f"Bearer {token}" and asked["account"] == "acct-42"
            assert asked["model"] == "gpt-test" and asked["store"] is False and asked["originator"]
            assert asked["instructions"], "the system prompt travels as instructions"
        assert any(tool["name"] == "speak_as_npc" and "parameters" in tool for tool in first["tools"])
        assert {"type": "input_text", "text": "Pat: I open the door"} in [
            part for item in first["input"] if item.get("role") == "user" for part in item["content"]
        ]
        call = next(item for item in second["input"] if item.get("type") == "function_call")
        answer = next(item for item in second["input"] if item.get("type") == "function_call_output")
        assert call["name"] == "speak_as_npc" and answer["call_id"] == call["call_id"]

        # Refused mid-turn: the token is renewed once and the turn goes on.
        chatgpt.script(Status(401, "token expired"))
        chatgpt.script(Text("The lamp flickers back."))
        await player.say("I wait")
        frames = await until_idle(player)
        assert _kinds(frames) == [("kp", "The lamp flickers back.")]
        assert chatgpt.requests[-1]["authorization"] == f"Bearer {auth.issued[-2]}" != f"Bearer {token}"

        # The subscription's allowance is spent: the keepers read so.
        await settle(keeper)
        chatgpt.script(Status(429, "You have reached your usage limit."))
        await player.say("I search the desk")
        told_player = told(await until_idle(player))
        told_keeper = [f["text"] for f in await until_idle(keeper) if f["type"] == "system"]
        assert len(told_player) == 1 and "unavailable" in told_player[0]
        assert any("chatgpt subscription has reached its usage limit" in text for text in told_keeper)


DRAFT = """```yaml
title: The Drowned Bell
intro: A bell rings under the sea.
truth: The lighthouse keeper rings it.
scene: Kessel harbour
npcs:
  - {name: Silas Reed, persona: a polite old man, secret: he rings it}
```"""


async def test_a_module_is_drafted_on_the_rooms_chatgpt_sign_in(table, room):
    server, auth, chatgpt = table
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await sign_in(keeper, auth, "chatgpt")
        await keeper.say(".model set chatgpt gpt-test")
        await private_line(keeper, "Switched")
        chatgpt.script(Text(DRAFT))
        await keeper.say(".module import # Fishermen of Kessel\nA bell rings at night.")
        assert "drafting" in await private_line(keeper, "drafting")
        assert "NPCs added: 1" in await private_line(keeper, "The Drowned Bell", timeout=20)
    asked = chatgpt.requests[-1]
    assert asked["authorization"] == f"Bearer {auth.issued[-2]}" and asked["model"] == "gpt-test"
    assert "Fishermen of Kessel" in str(asked["input"])
