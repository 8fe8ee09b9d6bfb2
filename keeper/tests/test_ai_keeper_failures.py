"""A Keeper turn that goes wrong still ends cleanly: every draft gets its closing
`narrative`, `idle` follows, and the room takes the next turn. Players read that the
Keeper is unavailable and that the keepers were told; keepers read what failed, where,
and how to fix it."""

from __future__ import annotations

import threading

from loreweaver.testing.clients import WsClient, settle, until_idle
from loreweaver.testing.fake_llm import Drop, Status, Text, Wait


async def test_a_stream_dropped_mid_reply_closes_the_draft_and_frees_the_room(ai_server, llm, room):
    key = ai_server.env.mint(room, "Bo")
    llm.script(Text("The lantern gutters "), Text("and the "), Drop())
    llm.script(Text("All is quiet again."))
    async with await WsClient.connect(ai_server.ws_url) as bo:
        await bo.join(key)
        await bo.say("I light the lantern")
        frames = await until_idle(bo)
        deltas = [f for f in frames if f["type"] == "narrative_delta"]
        closing = [f for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
        assert deltas and len(closing) == 1 and closing[0]["id"] == deltas[0]["id"]
        assert closing[0]["text"] == "The lantern gutters and the", "closed with the text streamed so far"
        warning = next(f for f in frames if f["type"] == "system")
        assert warning["level"] == "warn" and "model" in warning["text"]
        await bo.say("I wait")
        frames = await until_idle(bo)
        assert [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"] == [
            "All is quiet again."
        ]


async def test_the_others_get_the_closing_frame_when_the_speaker_leaves_mid_turn(ai_server, llm, room):
    env = ai_server.env
    go_on = threading.Event()
    llm.script(Text("Thunder rolls "), Wait(go_on), Text("over the bay."))
    async with await WsClient.connect(ai_server.ws_url) as watcher:
        await watcher.join(env.mint(room, "Watcher"))
        speaker = await WsClient.connect(ai_server.ws_url)
        await speaker.join(env.mint(room, "Leaver"))
        await settle(watcher)
        await speaker.say("I look at the sky")
        first = await watcher.expect("narrative_delta", timeout=20)
        await speaker.close()
        await watcher.expect("presence")
        go_on.set()
        frames = await until_idle(watcher)
        closing = [f for f in frames if f["type"] == "narrative" and f.get("id") == first["id"]]
        assert closing and closing[0]["text"] == "Thunder rolls over the bay."


async def test_a_second_input_during_a_turn_is_queued_and_runs_after_it(ai_server, llm, room):
    env = ai_server.env
    go_on = threading.Event()
    llm.script(Text("The bell "), Wait(go_on), Text("tolls once."))
    llm.script(Text("Silence answers you."))
    async with (
        await WsClient.connect(ai_server.ws_url) as first,
        await WsClient.connect(ai_server.ws_url) as second,
    ):
        await first.join(env.mint(room, "First"))
        await second.join(env.mint(room, "Second"))
        await settle(first)
        await settle(second)
        await first.say("I ring the bell")
        await second.expect("narrative_delta", timeout=20)
        await second.say("I cover my ears")
        notice = await second.expect("system", timeout=20)
        assert notice["level"] == "info" and "queued" in notice["text"]
        go_on.set()
        frames = await until_idle(second)
        frames += await until_idle(second)
    story = [(f["speaker"], f["text"]) for f in frames if f["type"] == "narrative"]
    assert story == [
        ("kp", "The bell tolls once."),
        ("player", "I cover my ears"),
        ("kp", "Silence answers you."),
    ]


async def test_a_refused_key_tells_players_the_keeper_is_unavailable_and_keepers_how_to_fix_it(
    ai_server, llm, room
):
    env = ai_server.env
    llm.script(Status(401, "invalid api key"))
    async with (
        await WsClient.connect(ai_server.ws_url) as keeper,
        await WsClient.connect(ai_server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await settle(keeper)
        await player.say("I knock on the door")
        seen_by_player = await until_idle(player)
        seen_by_keeper = await until_idle(keeper)
    told_player = [f["text"] for f in seen_by_player if f["type"] == "system"]
    assert (
        len(told_player) == 1
        and "unavailable" in told_player[0]
        and "keepers have been told" in told_player[0]
    )
    told_keeper = [f["text"] for f in seen_by_keeper if f["type"] == "system"]
    fix = next(text for text in told_keeper if "did not answer" in text and "401" in text)
    assert "scripted-keeper at http://127.0.0.1" in fix and "check the API key" in fix
    assert "sk-test" not in fix, "the key itself is never shown"
    assert not any("401" in text for text in told_player), "the details are for keepers"
