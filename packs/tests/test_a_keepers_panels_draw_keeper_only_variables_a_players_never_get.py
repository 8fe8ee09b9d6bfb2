"""The example pack's keeper-only variables (the cult's alertness, the clues) draw in the
keeper's panels, in the `.panel` text and in the browser table, and never reach a
player's connection in any frame (docs/packs.md, "Module variables" and "Panels in a
room"). Over both carriers, and in Chromium at a wide and a phone width, in English
and in Chinese."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.clients import Client, connect, system_answer

# What a player must never be sent: the keeper-only variables' labels (both languages)
# and the keeper's checklist.
KEEPER_ONLY = [
    "Cult alertness",
    "邪教警觉",
    "The harbourmaster's ledger",
    "港务长的账本",
    "A sigil under the pier",
    "码头下的印记",
    "alertness",
    "clue.ledger",
    "clue.sigil",
    "keeper-checklist",
]
# Where the screenshots of the keeper's panels go (the lead's notes, else build/screens).
SHOTS = Path(os.environ.get("PANEL_SCREENS", SCREENS))
TIMEOUT = 20_000


async def _drain(client: Client) -> list[dict]:
    """Every frame the client has been sent so far."""
    await client.send({"type": "ping", "t": 1})
    return await client.collect_until("pong")


def _leaks(frames: list[dict]) -> list[str]:
    text = json.dumps(frames, ensure_ascii=False)
    return [word for word in KEEPER_ONLY if word in text]


async def test_the_keepers_panel_text_reads_keeper_only_variables_and_a_players_gets_none(
    panel_server, room, carrier
):
    env = panel_server.env
    async with await connect(carrier, panel_server) as kay, await connect(carrier, panel_server) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        heard = await pip.join(env.mint(room, "Pip"))
        assert "harbour-clues" in await system_answer(kay, ".panels enable harbour-clues")
        assert "7" in await system_answer(kay, ".var set alertness 7")

        checklist = await system_answer(kay, ".panel keeper-checklist")
        assert "Cult alertness: 7/10" in checklist.splitlines()
        board = (await system_answer(kay, ".panel harbour-clues/clue-board")).splitlines()
        assert "[The harbourmaster's ledger]" in board and "[A sigil under the pier]" in board
        assert "Day: 1" in board
        listing = await system_answer(kay, ".panel")
        assert "harbour-clues/keeper-checklist" in listing

        heard += await _drain(pip)
        own = await system_answer(pip, ".panel clue-board")
        assert own.splitlines()[1:3] == ["Day: 1", "(picture) The harbour"]  # no clue badges
        refused = await system_answer(pip, ".panel keeper-checklist")
        assert refused.startswith("No panel keeper-checklist here.")
        assert "keeper-checklist" not in await system_answer(pip, ".panel")
        heard += await _drain(pip)

    shown = [[row["id"] for row in frame["variables"]] for frame in heard if "variables" in frame]
    assert shown and all(ids == ["day"] for ids in shown)  # before and after the panels came on
    assert _leaks(heard) == []


def _page(context, server, key: str):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}")
    page.locator("#table-screen").wait_for(state="visible")
    return page, errors


def _say(page, line: str) -> None:
    page.fill("#say", line)
    page.press("#say", "Enter")


@pytest.mark.parametrize(
    ("language", "alertness", "ledger", "checklist"),
    [
        ("en", "Cult alertness", "The harbourmaster's ledger", "Keeper's checklist"),
        ("zh", "邪教警觉", "港务长的账本", "守秘人检查单"),
    ],
)
@BROWSER_TESTS[0]
@BROWSER_TESTS[1]
def test_chromium_draws_the_keepers_meter_and_clues_and_a_players_page_is_never_sent_them(
    browser, panel_server, room, language, alertness, ledger, checklist
):
    env = panel_server.env
    player_frames: list[str] = []
    player_context = browser.new_context(viewport={"width": 1280, "height": 860})
    keeper_context = browser.new_context(viewport={"width": 1280, "height": 900})
    keeper, keeper_errors = _page(keeper_context, panel_server, env.mint(room, "Kay", "keeper"))
    if language == "zh":  # the room and the keeper's page both in Chinese
        _say(keeper, ".language zh")
        keeper.locator("#story", has_text="房间语言已切换为中文。").wait_for()
        keeper.select_option("#table-language", "zh")
        keeper.locator("html[lang='zh-Hans']").wait_for(state="attached")

    player = player_context.new_page()
    player.set_default_timeout(TIMEOUT)
    player.on(
        "websocket", lambda socket: socket.on("framereceived", lambda payload: player_frames.append(payload))
    )
    player.goto(f"{panel_server.ws_url.replace('ws://', 'http://')}#key={env.mint(room, 'Pip')}")
    player.locator("#table-screen").wait_for(state="visible")

    _say(keeper, ".panels enable harbour-clues")
    _say(keeper, ".var set alertness 7")
    row = keeper.locator("[data-panel='harbour-clues/keeper-checklist'] .resource", has_text="7/10")
    row.wait_for()
    assert row.locator("meter").get_attribute("aria-label") == alertness
    assert row.locator("meter").evaluate("(meter) => [meter.value, meter.min, meter.max]") == [7, 0, 10]
    board = keeper.locator("[data-panel='harbour-clues/clue-board']")
    board.locator(".badge", has_text=ledger).wait_for()
    assert board.locator(".badge").count() == 2
    assert keeper.locator("[data-panel='harbour-clues/keeper-checklist'] h3").inner_text() == checklist

    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        keeper.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
        if width < 760:  # at a phone's width the sidebar is a drawer: open it
            keeper.click("#toggle-side")
        panels = keeper.locator("#panels")
        panels.scroll_into_view_if_needed()
        snap(keeper, SHOTS / f"keeper-panels-{language}-{width}.png", full_page=True)
        snap(panels, SHOTS / f"keeper-panels-{language}-{width}-panels.png")

    # The player's page has the clue board, without a single clue, and never the checklist.
    player_board = player.locator("[data-panel='harbour-clues/clue-board']")
    player_board.wait_for()
    _say(player, ".panel clue-board")
    player.locator("#story", has_text="harbour-clues/clue-board").wait_for()
    assert player_board.locator(".badge").count() == 0
    assert player.locator("[data-panel='harbour-clues/keeper-checklist']").count() == 0
    assert player.locator("#panels meter").count() == 0
    assert keeper_errors == []
    player_context.close()
    keeper_context.close()
    texts = [json.loads(frame) for frame in player_frames if isinstance(frame, str)]
    pictures = [frame for frame in player_frames if isinstance(frame, bytes)]  # the harbour map
    assert texts and _leaks(texts) == []
    assert not [word for word in KEEPER_ONLY for data in pictures if word.encode() in data]
