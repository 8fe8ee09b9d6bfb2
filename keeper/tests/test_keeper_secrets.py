"""Keeper-only data never reaches a player: over a full
scripted session the module's truth, the keepers' notes and the NPCs' secrets appear
in no frame a player connection receives, live or replayed, while the keeper's own
connection does see them. An NPC is voiced from its own record only."""

from __future__ import annotations

import json

from loreweaver.testing.clients import IrohClient, WsClient
from loreweaver.testing.fake_llm import Text, Tool

TRUTH = "TRUTH-SENTINEL-drowned-chapel"
RUTH_SECRET = "RUTH-SECRET-SENTINEL-bribe"
SILAS_SECRET = "SILAS-SECRET-SENTINEL-bell"
TYPED_NOTE = "NOTE-SENTINEL-typed"
MODEL_NOTE = "NOTE-SENTINEL-from-model"
SENTINELS = (TRUTH, RUTH_SECRET, SILAS_SECRET, TYPED_NOTE, MODEL_NOTE)


class Recorder:
    """Keeps every frame a client receives."""

    def __init__(self, client) -> None:
        self.client = client
        self.frames: list[dict] = []

    async def until(self, frame_type: str, **fields) -> dict:
        while True:
            frame = await self.client.recv(20)
            self.frames.append(frame)
            if frame["type"] == frame_type and all(frame.get(k) == v for k, v in fields.items()):
                return frame

    async def settle(self) -> None:
        await self.client.send({"type": "ping", "t": 2})
        await self.until("pong")

    def leaked(self) -> list[str]:
        text = json.dumps(self.frames, ensure_ascii=False)
        return [s for s in SENTINELS if s in text]


async def test_no_keeper_secret_reaches_a_player_in_a_full_session(ai_server, llm, room):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as keeper_socket,
        await IrohClient.connect(ai_server.ticket) as player_socket,
    ):
        keeper, player = Recorder(keeper_socket), Recorder(player_socket)
        await keeper_socket.send({"type": "join", "key": env.mint(room, "Kay", "keeper")})
        await keeper.until("ui_manifest")
        await player_socket.send({"type": "join", "key": env.mint(room, "Pat")})
        await player.until("ui_manifest")
        for line in (
            f".module set Gull Rock | A lighthouse has gone dark. | {TRUTH}",
            f".npc add Ruth | the harbour master, brisk | {RUTH_SECRET}",
            f".npc add Silas | the lighthouse keeper, gaunt | {SILAS_SECRET}",
            f".note {TYPED_NOTE}",
        ):
            await keeper_socket.say(line)
            await keeper.until("narrative", speaker="system")
        await player_socket.say(".coc Pat")
        await player.until("state")

        llm.script(
            Text("The harbour is grey. "),
            Tool("keeper_note", {"text": MODEL_NOTE}),
            Tool("roll_dice", {"expression": "1d100", "hidden": True}),
        )
        llm.script(Tool("speak_as_npc", {"npc": "Ruth", "direction": "ask them to row out"}))
        llm.say("Will you row out, friend?")
        llm.script(Tool("skill_check", {"character": "Pat", "skill": "spot_hidden"}))
        llm.script(Text("The rock waits."))
        await player_socket.say("I ask about the lighthouse")
        await player.until("turn_status", status="idle")
        await keeper.until("turn_status", status="idle")

        for line in (".npc", ".npc show Silas", ".recap", ".report", ".module", ".note", ".help"):
            await player_socket.say(line)
            await player.until("narrative", speaker="system")
        await keeper_socket.say(".npc")
        await keeper.until("narrative", speaker="system")
        await keeper_socket.say(".module")
        await keeper.until("narrative", speaker="system")
        await player.settle()
        await keeper.settle()

    async with await WsClient.connect(ai_server.ws_url) as late_socket:
        late = Recorder(late_socket)
        await late_socket.send({"type": "join", "key": env.mint(room, "Late")})
        await late.until("ui_manifest")

    assert player.leaked() == [] and late.leaked() == []
    assert set(keeper.leaked()) == set(SENTINELS), "the keeper's own connection sees the secrets"
    player_dice = [f for f in player.frames if f["type"] == "dice"]
    keeper_dice = [f for f in keeper.frames if f["type"] == "dice"]
    assert len(player_dice) == 1 and len(keeper_dice) == 2, "the hidden roll reaches keepers only"

    keeper_brief = [r for r in llm.chat_requests() if r.get("stream")][-1]["messages"][0]["content"]
    assert TRUTH in keeper_brief and SILAS_SECRET in keeper_brief, "the Keeper model knows the secrets"
    npc_brief = next(r for r in llm.chat_requests() if not r.get("stream"))
    text = json.dumps(npc_brief["messages"], ensure_ascii=False)
    assert "Ruth" in text and RUTH_SECRET in text
    assert (
        SILAS_SECRET not in text and TRUTH not in text and MODEL_NOTE not in text and TYPED_NOTE not in text
    )
