"""The offline sample Keeper (docs/decisions.md, "The offline Keeper and the sample adventure"): with
no model configured, a keeper in an empty room is offered `demo`, the guided action
sets the adventure up, and the sample Keeper plays it with real checks. Anyone else,
or any room already playing a module, gets `demo_unavailable` and nothing changes."""

from __future__ import annotations

from keeper.kp.sample import GUIDED_ACTIONS
from keeper.tests.test_ai_keeper_turn import settle
from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.servers import dedicated_server

# No TRPG_LLM__*: the offline Keeper plays.
offline_server = dedicated_server()


async def _turn(client) -> list[dict]:
    frames = []
    while True:
        frame = await client.recv(20)
        frames.append(frame)
        if frame["type"] == "state" and any(
            f["type"] == "turn_status" and f["status"] == "idle" for f in frames
        ):
            return frames


def _checks(frames: list[dict]) -> list[str]:
    return [f["skill"] for f in frames if f["type"] == "dice" and f["kind"] == "check"]


async def test_a_keeper_plays_the_sample_adventure_with_real_checks(offline_server, room):
    env = offline_server.env
    async with (
        await WsClient.connect(offline_server.ws_url) as keeper,
        await IrohClient.connect(offline_server.ticket) as player,
    ):
        welcome = (await keeper.join(env.mint(room, "Kay", "keeper")))[0]
        assert "demo" in welcome["features"]
        player_welcome = (await player.join(env.mint(room, "Pat")))[0]
        assert "demo" not in player_welcome["features"], "demo is offered to keepers only"

        await player.say(GUIDED_ACTIONS[0])
        refused = await player.expect("error")
        assert refused["code"] == "demo_unavailable" and refused["message"]
        await settle(keeper)

        await keeper.say(GUIDED_ACTIONS[0])
        opening = await _turn(keeper)
        assert [f["speaker"] for f in opening if f["type"] == "narrative"][:2] == ["player", "kp"]
        npc = next(f for f in opening if f.get("speaker") == "npc")
        assert npc["name"] == "Ruth Cobb" and npc["text"]
        assert any(f["type"] == "narrative_delta" for f in opening), "the sample Keeper streams"
        state = opening[-1]
        assert "character" not in state and state["scene"]["name"] == "Kingsmouth harbour"
        assert state["clock"]["time"] == "Day 1, 19:40" and "usage" not in state

        played = []
        for line in ("I row out to the rock", "I examine the door", "We go inside", "I watch his face"):
            await keeper.say(line)
            frames = await _turn(keeper)
            played += _checks(frames)
            for dice in (f for f in frames if f["type"] == "dice"):
                assert dice["outcome"]["label"] and isinstance(dice["outcome"]["success"], bool)
        assert played == ["spot_hidden", "psychology"], "a check where the line calls for one"
        assert frames[-1]["scene"]["name"] == "The lighthouse stair"
        await player.send({"type": "ping", "t": 5})
        seen_by_player = await player.collect_until("pong", timeout=20)
        assert _checks(seen_by_player) == played, "the whole table sees the checks"

    async with await WsClient.connect(offline_server.ws_url) as second_keeper:
        welcome = (await second_keeper.join(env.mint(room, "Kim", "keeper")))[0]
        assert "demo" not in welcome["features"], "the room is playing the adventure"
        await settle(second_keeper)
        await second_keeper.say(GUIDED_ACTIONS[0])
        assert (await second_keeper.expect("error"))["code"] == "demo_unavailable"
        await second_keeper.send({"type": "ping", "t": 3})
        after = await second_keeper.collect_until("pong")
        assert not [f for f in after if f["type"] in ("narrative", "turn_status")], "nothing changed"


async def test_the_chinese_guided_action_plays_in_chinese(offline_server, room):
    async with await WsClient.connect(offline_server.ws_url) as keeper:
        await keeper.join(offline_server.env.mint(room, "Kay", "keeper"), locale="zh")
        await keeper.say(GUIDED_ACTIONS[1])
        frames = await _turn(keeper)
    narration = [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
    assert "灯塔" in narration[0]
    assert frames[-1]["scene"]["name"] == "金斯茅斯港"
    assert frames[-1]["clock"]["time"] == "第1天 19:40", "the story time reads in the viewer's language"
