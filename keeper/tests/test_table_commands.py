"""The keeper's table commands over the wire: .reset + .reset confirm, .save / .save load,
.language."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, human_keeper_narrates, keeper_and_player


async def test_reset_needs_a_confirmation_and_then_clears_the_story_for_everyone(server, room):
    keeper_key, player_key = server.env.mint(room, "Keeper", "keeper"), server.env.mint(room, "Player")
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
    ):
        await keeper.join(keeper_key)
        await player.join(player_key)
        await player.say("A line to lose.")
        await keeper.expect("narrative", text="A line to lose.")
        await player.say(".reset")
        assert "keeper" in (await player.expect("narrative", speaker="system"))["text"].lower()
        await keeper.say(".reset confirm")
        assert "Nothing to confirm" in (await keeper.expect("narrative", speaker="system"))["text"]
        await keeper.say(".reset")
        warning = await keeper.expect("narrative", speaker="system")
        assert "confirm" in warning["text"]
        await keeper.say(".reset confirm")
        assert (await player.expect("state", reset=True))["type"] == "state"
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(player_key)
    assert not [f for f in frames if f["type"] == "narrative"]


async def test_a_checkpoint_saves_and_loads_the_room(server, room):
    await human_keeper_narrates(server, room)  # the keeper's lines are the narration
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        await keeper.say("Before the checkpoint.")
        await keeper.expect("narrative", text="Before the checkpoint.")
        await keeper.say(f".save {room}-cp")
        assert f"{room}-cp.zip" in (await keeper.expect("narrative", speaker="system"))["text"]
        await keeper.say("After the checkpoint.")
        await keeper.expect("narrative", text="After the checkpoint.")
        await keeper.say(f".save load {room}-cp")
        await keeper.expect("state", reset=True)
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(keeper_key)
    assert [f["text"] for f in frames if f["type"] == "narrative"] == ["Before the checkpoint."]


async def test_the_keeper_sets_the_room_language(server, room):
    async with keeper_and_player(server, room) as (keeper, player):
        await player.say(".language zh")
        assert "keeper" in (await player.expect("narrative", speaker="system"))["text"].lower()
        await keeper.say(".language zh")
        assert "Chinese" in (await player.expect("narrative", speaker="system"))["text"]
