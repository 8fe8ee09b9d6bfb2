"""A Keeper tool call whose arguments do not fit the tool's schema (a number where a
string is declared, a required argument left out) does not run: the model reads, as
the call's result, which argument was wrong and what it takes, and the turn goes on
to the model's next round. The table never sees that text."""

from __future__ import annotations

import json

from loreweaver.testing.clients import keeper_and_player, settle, turn_shape, until_idle
from loreweaver.testing.fake_llm import Text, Tool


def _tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def _said_anywhere(frames: list[dict], words: str) -> bool:
    return any(words in json.dumps(frame, ensure_ascii=False) for frame in frames)


async def test_a_number_where_a_string_is_declared_is_told_to_the_model_and_the_turn_goes_on(
    ai_server, llm, room
):
    llm.script(Text("You throw the bones. "), Tool("roll_dice", {"expression": 5}))
    llm.script(Text("The bones settle, and the harbour falls quiet."))
    async with keeper_and_player(ai_server, room, "Pat") as (keeper, player):
        await settle(keeper)
        await player.say("I throw the bones")
        seen_by_player = await until_idle(player)
        seen_by_keeper = await until_idle(keeper)
    streamed = [r for r in llm.chat_requests() if r.get("stream")]
    (told,) = _tool_results(streamed[-1])
    assert "`expression` must be a string, not 5" in told and "roll_dice did not run" in told
    for frames in (seen_by_player, seen_by_keeper):
        assert [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"] == [
            "You throw the bones.",
            "The bones settle, and the harbour falls quiet.",
        ]
        assert not [f for f in frames if f["type"] == "dice"], "the call did not run"
        assert not [f for f in frames if f["type"] == "system"], "no failure to report: the turn went on"
    assert not _said_anywhere(seen_by_player, "did not run")


async def test_a_missing_required_argument_is_told_to_the_model_which_calls_again(ai_server, llm, room):
    llm.script(Tool("skill_check", {"character": "Pat"}))
    llm.script(Tool("skill_check", {"character": "Pat", "skill": "spot_hidden", "value": 50}))
    llm.script(Text("Something glints under the pier."))
    async with keeper_and_player(ai_server, room, "Pat") as (keeper, player):
        await settle(keeper)
        await player.say("I look around")
        seen_by_player = await until_idle(player)
    streamed = [r for r in llm.chat_requests() if r.get("stream")]
    first_result = _tool_results(streamed[-2])[-1]
    assert "`skill` is missing (a string)" in first_result
    assert "skill (required)" in first_result, "the model reads the arguments the tool takes"
    assert "spot_hidden" in _tool_results(streamed[-1])[-1], "the second call ran"
    start = next(i for i, f in enumerate(seen_by_player) if f.get("text") == "I look around")
    assert turn_shape(seen_by_player[start:]) == [
        "narrative:player",
        "busy",
        "busy:dice:1",
        "busy:dice:2",
        "dice:check",
        "delta",
        "narrative:kp",
        "idle",
    ]
    assert not _said_anywhere(seen_by_player, "is missing")


async def test_a_wrong_type_a_tool_cannot_read_no_longer_fails_the_turn(ai_server, llm, room):
    # `keywords: 5` once reached the tool and raised TypeError past the turn's handler.
    llm.script(Tool("remember", {"title": "The pier", "keywords": 5, "content": "It creaks."}))
    llm.script(Text("The pier creaks underfoot."))
    async with keeper_and_player(ai_server, room, "Pat") as (keeper, player):
        await settle(keeper)
        await player.say("I walk onto the pier")
        seen_by_player = await until_idle(player)
    told = _tool_results([r for r in llm.chat_requests() if r.get("stream")][-1])[-1]
    assert "`keywords` must be a list of strings, not 5" in told
    assert [f["text"] for f in seen_by_player if f["type"] == "narrative" and f["speaker"] == "kp"] == [
        "The pier creaks underfoot."
    ]
