"""An AI Keeper turn on the wire: streamed narration, tool rounds, dice and NPC lines
in the model's order, and the same lines replayed to a late joiner."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient, WsClient, settle, turn_shape, until_idle
from loreweaver.testing.fake_llm import Text, Tool, Usage

TURN_END = "state"


async def test_a_turn_streams_rolls_and_voices_an_npc_in_the_models_order(ai_server, llm, room):
    env = ai_server.env
    alice_key, keeper_key = env.mint(room, "Alice"), env.mint(room, "Kay", "keeper")
    llm.script(
        Text("The door "),
        Text("creaks open. "),
        Tool("skill_check", {"character": "Alice", "skill": "spot_hidden"}),
        Usage(900, 40, 300),
    )
    llm.script(
        Text("You notice "),
        Text("scratches."),
        Tool("speak_as_npc", {"npc": "Silas", "direction": "warn them off"}),
        Usage(1000, 20, 900),
    )
    llm.say("Go back before the tide turns.")
    llm.script(Text("He points "), Text("at the *stairs*."), Usage(1100, 30, 1000))
    async with (
        await WsClient.connect(ai_server.ws_url) as alice,
        await IrohClient.connect(ai_server.ticket) as kay,
    ):
        await alice.join(alice_key)
        await kay.join(keeper_key)
        await alice.say(".coc Alice")
        await alice.expect("state")
        await kay.say(".npc add Silas | the lighthouse keeper | he hears a bell")
        await kay.expect("narrative", speaker="system", text="NPC Silas saved.")
        await settle(alice)
        await settle(kay)
        await alice.say("I open the door")
        seen = {}
        for name, client in (("alice", alice), ("kay", kay)):
            frames = await until_idle(client)
            frames.append(await client.expect(TURN_END))
            # Setup frames may still trail in before the utterance; the turn starts at it.
            start = next(i for i, f in enumerate(frames) if f.get("text") == "I open the door")
            seen[name] = frames[start:]
    expected = [
        "narrative:player",
        "busy",
        "delta",
        "narrative:kp",
        "busy:dice:1",
        "dice:check",
        "delta",
        "narrative:kp",
        "busy:cast:2",
        "narrative:npc",
        "delta",
        "narrative:kp",
        "idle",
    ]
    for name, frames in seen.items():
        assert turn_shape(frames) == expected, name
        assert frames[-1]["type"] == "state" and frames[-1]["usage"]["input_tokens"] == 3000
        assert (
            frames[-1]["usage"]["context_tokens"] == 1130 and frames[-1]["usage"]["cache_hit_tokens"] == 2200
        )
    frames = seen["alice"]
    busy = [f for f in frames if f["type"] == "turn_status" and f["status"] == "busy"]
    assert busy[0] == {"type": "turn_status", "status": "busy", "actor": "Alice"}, (
        "the opening busy has no round"
    )
    drafts = {}
    for frame in frames:
        if frame["type"] == "narrative_delta":
            drafts[frame["id"]] = drafts.get(frame["id"], "") + frame["text"]
    closing = [f for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
    assert [f["text"] for f in closing] == [
        "The door creaks open.",
        "You notice scratches.",
        "He points at the *stairs*.",
    ]
    assert all(drafts[f["id"]].strip() == f["text"] for f in closing), (
        "each draft is replaced by its final text"
    )
    assert all(f["format"] == "markdown" for f in closing)
    dice = next(f for f in frames if f["type"] == "dice")
    assert dice["actor"] == "Alice" and dice["skill"] == "spot_hidden" and "outcome" in dice
    npc = next(f for f in frames if f.get("speaker") == "npc")
    assert (
        npc["name"] == "Silas"
        and npc["text"] == "Go back before the tide turns."
        and npc["format"] == "markdown"
    )

    # The model was told the check's result and the NPC's words before it went on.
    second, third = [r for r in llm.chat_requests() if r.get("stream")][-2:]
    assert second["messages"][-1]["role"] == "tool" and "spot_hidden" in second["messages"][-1]["content"]
    assert third["messages"][-1]["content"] == "Silas said: Go back before the tide turns."

    # A member joining afterwards sees the dice and the NPC line where they happened.
    async with await WsClient.connect(ai_server.ws_url) as late:
        replay = await late.join(env.mint(room, "Late"))
    story = [f for f in replay if f["type"] in ("narrative", "dice")]
    assert turn_shape(story) == [
        "narrative:player",
        "narrative:kp",
        "dice:check",
        "narrative:kp",
        "narrative:npc",
        "narrative:kp",
    ]
    assert [f["id"] for f in story if f["type"] == "narrative"] == [
        f["id"] for f in frames if f["type"] == "narrative"
    ], "replayed lines keep their live ids"
