"""With no model, the offline Keeper answers every story line of every room in a model's
frame order, rolls real checks, voices the room's NPCs without their secrets and speaks
the room's language, recalls the room's lore for everyone when a line mentions it;
`.bot off` hands the narration to a human keeper
(docs/decisions.md, "The offline Keeper and the sample adventure")."""

from __future__ import annotations

import json
import re

from loreweaver.testing.clients import IrohClient, WsClient, keeper_and_player, settle, turn_shape, until_idle

CJK = re.compile(r"[\u4e00-\u9fff]")


async def _turn_after(client, line: str) -> list[dict]:
    """The frames from `line` to the state that closes the Keeper's turn."""
    frames = await until_idle(client)
    frames.append(await client.expect("state"))
    start = next(i for i, f in enumerate(frames) if f.get("text") == line)
    return frames[start:]


async def test_a_fresh_room_with_no_model_answers_with_a_real_check(server, room):
    ada_key, watcher_key = server.env.mint(room, "Ada"), server.env.mint(room, "Wes")
    async with (
        await WsClient.connect(server.ws_url) as ada,
        await IrohClient.connect(server.ticket) as watcher,
    ):
        await ada.join(ada_key)
        await watcher.join(watcher_key)
        await ada.say(".coc Ada")
        await ada.expect("state")
        await settle(watcher)
        await ada.say("I search the desk")
        seen = {"ada": await _turn_after(ada, "I search the desk")}
        seen["watcher"] = await _turn_after(watcher, "I search the desk")
    for frames in seen.values():
        assert turn_shape(frames) == [
            "narrative:player",
            "busy",
            "delta",
            "narrative:kp",
            "busy:dice:1",
            "dice:check",
            "delta",
            "narrative:kp",
            "idle",
        ]
    frames = seen["ada"]
    check = next(f for f in frames if f["type"] == "dice")
    assert check["actor"] == "Ada" and check["skill"] == "spot_hidden" and check["expr"] == "1d100"
    assert 1 <= check["total"] <= 100 and check["outcome"]
    narration = [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
    assert all(narration) and "Ada" in narration[0]
    assert frames[-1]["type"] == "state"


async def test_a_zh_room_is_answered_in_chinese(server, room):
    async with keeper_and_player(server, room, "Lin") as (keeper, player):
        await keeper.say(".language zh")
        await keeper.expect("narrative", speaker="system")
        await settle(player)
        await player.say("我仔细搜查书桌")
        frames = await _turn_after(player, "我仔细搜查书桌")
    narration = [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
    assert narration and all(CJK.search(text) for text in narration)
    assert not any(re.search(r"\b(the|and|is)\b", text) for text in narration), narration
    assert [f["kind"] for f in frames if f["type"] == "dice"] == ["check"]


async def test_the_offline_keeper_voices_an_npc_and_keeps_the_secrets(server, room):
    async with keeper_and_player(server, room, "Pip") as (keeper, player):
        await keeper.say(".npc add Silas Reed | the lighthouse keeper | SECRET-he-rang-the-bell")
        await keeper.expect("narrative", speaker="system")
        await keeper.say(".module set The Bell | A bell rings at night. | TRUTH-the-bell-is-a-signal")
        await keeper.expect("narrative", speaker="system")
        await settle(player)
        await player.say("Silas, what was that bell?")
        frames = await _turn_after(player, "Silas, what was that bell?")
    assert turn_shape(frames)[:8] == [
        "narrative:player",
        "busy",
        "delta",
        "narrative:kp",
        "busy:cast:1",
        "narrative:npc",
        "delta",
        "narrative:kp",
    ]
    assert next(f for f in frames if f.get("speaker") == "npc")["name"] == "Silas Reed"
    assert "SECRET" not in json.dumps(frames) and "TRUTH" not in json.dumps(frames)


async def test_the_offline_keeper_recalls_the_lore_a_line_mentions_but_never_a_keeper_only_fact(server, room):
    async with keeper_and_player(server, room, "Pip") as (keeper, player):
        await keeper.say(".lore add The Lamp | lamp, lighthouse | The lamp has been dark for a year.")
        await keeper.expect("narrative", speaker="system")
        await keeper.say(".lore secret The Ferry | ferry | SECRET-Silas-sank-it")
        await keeper.expect("narrative", speaker="system")
        await settle(player)
        await player.say("I ask about the lamp and the ferry")
        frames = await _turn_after(player, "I ask about the lamp and the ferry")
    narration = " ".join(f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp")
    assert "recalls what is known of The Lamp: The lamp has been dark for a year." in narration
    assert "SECRET" not in json.dumps(frames) and "The Ferry" not in narration


async def test_bot_off_leaves_the_line_to_the_human_keeper_and_bot_on_brings_the_keeper_back(server, room):
    async with keeper_and_player(server, room, "Pip") as (keeper, player):
        await keeper.say(".bot off")
        announced = await player.expect("narrative", speaker="system")
        assert "human keeper" in announced["text"]

        await player.say("I search the desk")
        await player.expect("narrative", text="I search the desk")
        quiet = await player.collect_until("state")
        assert not [f for f in quiet if f["type"] in ("turn_status", "dice", "narrative_delta")]
        await keeper.say("The drawer sticks, then gives.")
        narration = await player.expect("narrative", text="The drawer sticks, then gives.")
        assert narration["speaker"] == "kp" and narration["name"] == "Kay"

        async with await WsClient.connect(server.ws_url) as late:
            await late.join(server.env.mint(room, "Late"))
            assert "human keeper" in (await late.expect("system"))["text"]

        await keeper.say(".bot on")
        await player.expect("narrative", speaker="system")
        await player.say("I search the desk again")
        frames = await _turn_after(player, "I search the desk again")
    assert "busy" in turn_shape(frames) and "dice:check" in turn_shape(frames)


async def test_a_player_sees_the_bot_state_but_cannot_change_it(server, room):
    keeper_key, player_key = server.env.mint(room, "Kay", "keeper"), server.env.mint(room, "Pip")
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(player_key)
        await player.say(".bot off")
        refusal = await player.expect("narrative", speaker="system")
        await player.say(".bot")
        state = await player.expect("narrative", speaker="system")
    assert "keeper" in refusal["text"].lower() and "Keeper bot answers" in state["text"]
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.say(".bot")
        assert "Keeper bot answers" in (await keeper.expect("narrative", speaker="system"))["text"]
