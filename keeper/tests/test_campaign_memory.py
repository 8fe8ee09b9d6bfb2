"""A long campaign against the scripted model server (docs/decisions.md, "Campaign
memory"): every brief stays within the model's window while the story is folded into
a summary (plain text, whatever marks the model wrote); a fact the Keeper established
at turn 10 is back in the brief at turn 290 when a player mentions it; keeper-only
lore and the module's truth never reach a player; a server killed mid-campaign comes
back with its chronicle, summary and lore, and builds the next brief from them."""

from __future__ import annotations

import json

import pytest

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.fake_llm import FakeLlm, Text, Tool
from loreweaver.testing.servers import (
    _database,
    create_env,
    destroy_env,
    hosted_profile,
    keeper_model,
    room_id_of,
    start_serve,
)

WINDOW = 8000
TURNS = 300
PASSWORD = "BLUE HERON"
SECRET = "SENTINEL-7731"
TRUTH = "TRUTH-5521"
# The model writes its summary in markdown; the summary is kept, briefed and recapped plain.
WRITTEN = "**Earlier:** the investigators rowed to *Gull Rock* and questioned `Old Tom`."
SUMMARY = "Earlier: the investigators rowed to Gull Rock and questioned Old Tom."


def _brief_chars(request: dict) -> int:
    return len(json.dumps(request["messages"], ensure_ascii=False)) + len(
        json.dumps(request.get("tools", []))
    )


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    llm = FakeLlm(standing_reply=[Text("The fog thickens over the harbour.")], standing_line=WRITTEN).start()
    env = create_env(tmp_path_factory.mktemp("campaign"), hosted=hosted_profile())
    overrides = keeper_model(llm.url, TRPG_LLM__CONTEXT_WINDOW=str(WINDOW), TRPG_RATE__BURST="100000")
    table = {"env": env, "llm": llm, "server": start_serve(env, **overrides), "overrides": overrides}
    yield table
    table["server"].stop()
    destroy_env(env)
    llm.stop()


def _rows(env, sql: str, room: str) -> list[tuple]:
    """Rows of the server's database, read from the test (`{mark}`: the placeholder)."""
    room_id = room_id_of(env, room)
    with _database(env) as (connection, mark):
        return list(connection.execute(sql.format(mark=mark), (room_id,)).fetchall())


async def _play(client: WsClient, text: str) -> list[dict]:
    await client.say(text)
    frames = []
    while True:
        frame = await client.recv(30)
        frames.append(frame)
        if frame["type"] == "state" and any(
            f["type"] == "turn_status" and f["status"] == "idle" for f in frames
        ):
            return frames


async def test_a_long_campaign_remembers_within_its_window_and_keeps_its_secrets(campaign, room):
    env, llm, server, overrides = campaign["env"], campaign["llm"], campaign["server"], campaign["overrides"]
    seen_by_player: list[dict] = []
    keeper_key, player_key = env.mint(room, "Kay", "keeper"), env.mint(room, "Pip")
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(keeper_key)
        await kay.say(
            f".module set Gull Rock | A dark lighthouse. | {TRUTH}: the keeper drowned his brother."
        )
        await kay.say(f".lore secret The mayor | mayor, sentinel | {SECRET}: the mayor leads the cult.")
        await kay.say(".lore add The harbour | harbour | Kingsmouth harbour silts up every spring.")
        await settle(kay)

    pip = await WsClient.connect(server.ws_url)
    seen_by_player += await pip.join(player_key)
    requests_before = len(llm.chat_requests())
    for turn in range(1, TURNS + 1):
        if turn == 10:
            llm.script(
                Text("Old Tom leans close. "),
                Tool(
                    "remember",
                    {
                        "title": "The vault password",
                        "keywords": ["password", "vault"],
                        "content": f"Old Tom the ferryman gave the password to the chapel vault: {PASSWORD}.",
                    },
                ),
            )
            llm.script(Text("He whispers two words."))
        line = {
            10: "I ask Old Tom how to open the chapel vault.",
            150: "Is the mayor a sentinel of something?",
            290: "What was the password to the vault again?",
        }.get(turn, f"I search the next room of the old customs house ({turn}).")
        seen_by_player += await _play(pip, line)
        if turn == 150:
            # Killed mid-campaign: everything it remembered is on disk.
            summary_before = _rows(
                env, "SELECT text FROM keeper_campaignsummary WHERE room_id = {mark}", room
            )
            server.kill9()
            server = campaign["server"] = start_serve(env, **overrides)
            await pip.close()
            pip = await WsClient.connect(server.ws_url)
            seen_by_player += await pip.join(player_key)
            assert (
                _rows(env, "SELECT text FROM keeper_campaignsummary WHERE room_id = {mark}", room)
                == summary_before
            )
            assert summary_before and summary_before[0][0] == SUMMARY, "folds happened before the kill"
    await pip.say(".recap")
    seen_by_player.append(await pip.expect("narrative", speaker="system"))
    await pip.say(".lore list")
    seen_by_player.append(await pip.expect("narrative", speaker="system"))
    await pip.close()

    requests = llm.chat_requests()[requests_before:]
    streamed = [r for r in requests if r.get("stream")]
    assert len(streamed) >= TURNS
    largest = max(_brief_chars(r) for r in streamed)
    assert largest / 3.5 < WINDOW, f"a brief of {largest} characters outgrew the window"
    briefs = [r["messages"][0]["content"] for r in streamed]
    assert any("THE STORY SO FAR" in brief and SUMMARY in brief for brief in briefs)

    def brief_answering(words: str) -> str:
        return next(r["messages"][0]["content"] for r in streamed if words in r["messages"][-1]["content"])

    assert PASSWORD in brief_answering("password to the vault again"), "the fact of turn 10 came back"
    assert SECRET in brief_answering("a sentinel of something"), "the secret was in play"
    assert sum(1 for r in requests if not r.get("stream")) >= 2, "the story was folded more than once"

    chronicle = _rows(env, "SELECT COUNT(*) FROM keeper_chronicleentry WHERE room_id = {mark}", room)
    assert chronicle[0][0] == TURNS
    text = json.dumps(seen_by_player, ensure_ascii=False)
    assert SECRET not in text and TRUTH not in text
    recap = seen_by_player[-2]["text"]
    assert SUMMARY in recap and "The harbour" in seen_by_player[-1]["text"]
    assert "The mayor" not in seen_by_player[-1]["text"]
