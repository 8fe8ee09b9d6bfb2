"""Dice commands over a real WebSocket connection."""

from __future__ import annotations

from loreweaver.testing.clients import IrohClient, WsClient, human_keeper_narrates


async def test_a_roll_yields_a_dice_frame_a_system_reply_and_a_state(server, room):
    key = server.env.mint(room, "Roller")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        await client.say(".r 1d1+1")
        frames = await client.collect_until("state")
    kinds = [f["type"] for f in frames]
    assert kinds == ["narrative", "dice", "narrative", "state"], kinds
    echo, dice, reply, _state = frames
    assert echo["speaker"] == "player" and echo["text"] == ".r 1d1+1"
    assert dice == {
        "type": "dice",
        "actor": "Roller",
        "kind": "roll",
        "expr": "1d1+1",
        "rolls": [1],
        "total": 2,
    }
    assert reply["speaker"] == "system" and "2" in reply["text"]


async def test_each_viewer_sees_outcome_labels_in_their_own_language(server, room):
    en_key, zh_key = server.env.mint(room, "En"), server.env.mint(room, "Zh")
    async with await WsClient.connect(server.ws_url) as en, await IrohClient.connect(server.ticket) as zh:
        await en.join(en_key, locale="en")
        await zh.join(zh_key, locale="zh")
        await en.say(".ra 侦查100")
        seen_en = await en.expect("dice")
        seen_zh = await zh.expect("dice")
    assert seen_en["outcome"]["id"] == seen_zh["outcome"]["id"]
    labels = {"en": seen_en["outcome"]["label"], "zh": seen_zh["outcome"]["label"]}
    assert labels["en"] in ("Success", "Hard success", "Extreme success", "Critical success", "Fumble")
    assert labels["zh"] in ("成功", "困难成功", "极难成功", "大成功", "大失败")
    assert seen_en["skill"] == "侦查" and seen_en["target"] == 100


async def test_a_players_house_rule_change_is_refused_privately(server, room):
    player_key, keeper_key = server.env.mint(room, "Pia"), server.env.mint(room, "Kai", "keeper")
    async with (
        await WsClient.connect(server.ws_url) as player,
        await WsClient.connect(server.ws_url) as keeper,
    ):
        await player.join(player_key)
        await keeper.join(keeper_key)
        await player.say(".rule 2")
        refusal = await player.expect("narrative", speaker="system")
        assert "keeper" in refusal["text"].lower()
        await keeper.say(".rule 2")
        changed = await keeper.expect("narrative", speaker="system")
        assert "2" in changed["text"]
        seen_by_keeper = [f async for f in _until_pong(keeper)]
    assert not [f for f in seen_by_keeper if f.get("text") == refusal["text"]], "the refusal was private"


async def _until_pong(client):
    await client.send({"type": "ping", "t": 0})
    for frame in await client.collect_until("pong"):
        yield frame


async def test_a_hidden_roll_reaches_the_roller_and_keepers_only_live_and_replayed(server, room):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    roller_key = server.env.mint(room, "Sly")
    keeper_key = server.env.mint(room, "Keeper", "keeper")
    player_key = server.env.mint(room, "Other")
    async with (
        await WsClient.connect(server.ws_url) as roller,
        await WsClient.connect(server.ws_url) as keeper,
        await IrohClient.connect(server.ticket) as other,
    ):
        await roller.join(roller_key)
        await keeper.join(keeper_key)
        await other.join(player_key)
        await roller.say("I listen at the door.")
        await roller.say(".rh 1d1")
        assert (await roller.expect("dice"))["total"] == 1
        assert (await keeper.expect("dice"))["actor"] == "Sly"
        live_for_other = [f async for f in _until_pong(other)]
    assert not [f for f in live_for_other if f["type"] == "dice"]
    async with await WsClient.connect(server.ws_url) as late_player:
        replay_player = await late_player.join(server.env.mint(room, "Late"))
    async with await WsClient.connect(server.ws_url) as late_keeper:
        replay_keeper = await late_keeper.join(keeper_key)
    assert not [f for f in replay_player if f["type"] == "dice"]
    assert [f["total"] for f in replay_keeper if f["type"] == "dice"] == [1]


async def test_typed_checks_replay_right_after_the_line_they_followed(server, room):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    key = server.env.mint(room, "Ada")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        await client.say("I search the study.")
        await client.expect("narrative", text="I search the study.")
        await client.say(".ra 侦查50")
        live = await client.expect("dice")
        await client.say("Then I read the letter.")
        await client.expect("narrative", text="Then I read the letter.")
    async with await IrohClient.connect(server.ticket) as again:
        frames = await again.join(key)
    story = [
        (f["type"], f.get("text") or f.get("total")) for f in frames if f["type"] in ("narrative", "dice")
    ]
    assert story == [
        ("narrative", "I search the study."),
        ("dice", live["total"]),
        ("narrative", "Then I read the letter."),
    ]
    replayed = next(f for f in frames if f["type"] == "dice")
    assert replayed == live


async def test_en_and_zh_viewers_see_their_own_resource_labels(server, room):
    en_key, zh_key = server.env.mint(room, "Ed"), server.env.mint(room, "Zhu")
    async with await WsClient.connect(server.ws_url) as en, await IrohClient.connect(server.ticket) as zh:
        await en.join(en_key, locale="en")
        await zh.join(zh_key, locale="zh")
        await en.say(".coc Edwin")
        state_en = await _state_where(en, lambda s: "character" in s)
        state_zh = await _state_where(zh, lambda s: any(p["name"] == "Edwin" for p in s["party"]))
    assert [r["label"] for r in state_en["character"]["resources"]] == ["HP", "MP", "Sanity", "Luck"]
    party_zh = {p["name"]: p for p in state_zh["party"]}
    assert [r["label"] for r in party_zh["Edwin"]["resources"]] == ["生命值", "魔法值", "理智", "幸运"]
    assert "character" not in state_zh, "the zh viewer has no character of their own"


async def test_a_sanity_check_replays_after_the_line_it_followed(server, room):
    await human_keeper_narrates(server, room)  # the lines get no Keeper turn
    key = server.env.mint(room, "Sanne")
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        await client.say(".coc Sanne")
        await client.expect("state")
        await client.say("I open the crypt.")
        await client.expect("narrative", text="I open the crypt.")
        await client.say(".sc 1/1d6")
        live = await client.expect("dice")
    async with await WsClient.connect(server.ws_url) as again:
        frames = await again.join(key)
    story = [f for f in frames if f["type"] in ("narrative", "dice")]
    assert story[-2]["text"] == "I open the crypt." and story[-1] == live
    assert live["kind"] == "subsystem" and live["subsystem"] == "sanity"


async def _state_where(client, condition):
    while True:
        state = await client.expect("state")
        if condition(state):
            return state


async def test_a_pack_dropped_into_the_packs_directory_appears_in_state_systems(fresh_env):
    from loreweaver.testing.servers import start_serve

    packs = fresh_env.data_dir / "packs"
    packs.mkdir(exist_ok=True)
    (packs / "blades.yaml").write_text(
        "id: blades\nname: {en: Blades}\nmake_char: blade\ndefault_die: 1d6\n"
        "check: {roll: d20, target: dc, ladder: dnd5e}\nsheet: {attributes: [INSIGHT, PROWESS]}\n"
    )
    server = start_serve(fresh_env)
    try:
        async with await WsClient.connect(server.ws_url) as client:
            frames = await client.join(fresh_env.mint("packs", "Pat"))
    finally:
        server.stop()
    systems = next(f for f in frames if f["type"] == "state")["systems"]
    assert {"id": "blades", "make_char": "blade"} in systems and {"id": "coc7", "make_char": "coc"} in systems
