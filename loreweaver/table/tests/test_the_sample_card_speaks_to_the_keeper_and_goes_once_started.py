"""A keeper's first screen speaks to the keeper (docs/decisions.md, "The browser
table"): the sample adventure's card says what a keeper does (start it, invite players,
the keeper screens), never "what your character does", and the sheet of a keeper with
no character says a keeper needs none rather than "try .coc or .dnd". Once the adventure
has started, however it started (here: the guided line typed, not the card's button),
the card and its Start button are gone. The card names the Keeper screens button by
the label it shows and says where it is in words true of both layouts (at the top: the
header's right on a desktop, the controls row's left on a phone). In English and
Chinese, at desktop and phone width; `make screens` leaves screenshots in
`build/screens/`."""

from __future__ import annotations

import pytest

from keeper.kp.sample import GUIDED_ACTIONS
from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.servers import dedicated_server

TIMEOUT = 30_000
WORDS = {
    "en": {
        "line": GUIDED_ACTIONS[0],
        "keeper": "invite players",
        "player": "your character",
        "sheet": "needs no character",
        "where": "at the top",
        "not where": "right",
    },
    "zh": {
        "line": GUIDED_ACTIONS[1],
        "keeper": "邀请玩家",
        "player": "你的角色",
        "sheet": "不需要角色",
        "where": "顶部",
        "not where": "右上",
    },
}

pytestmark = BROWSER_TESTS

offline_server = dedicated_server(TRPG_OFFLINE__STREAM_PAUSE="0")


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", [1280, 390])
def test_the_keepers_card_speaks_to_the_keeper_and_goes_once_the_adventure_starts(
    offline_server, browser, room, language, width
):
    words = WORDS[language]
    context = browser.new_context(viewport={"width": width, "height": 860})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        key = offline_server.env.mint(room, "Kay", "keeper")
        page.goto(offline_server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={key}")
        card = page.locator("#sample-card")
        card.wait_for()
        told = card.inner_text()
        assert words["keeper"] in told and words["player"] not in told, told
        button = page.locator("#open-keeper")
        assert button.inner_text() in told, (button.inner_text(), told)
        assert words["where"] in told and words["not where"] not in told, told
        assert button.bounding_box()["y"] < card.bounding_box()["y"], "the button is above the card"
        sheet = page.locator("#character-body")
        sheet.filter(has_text=words["sheet"]).wait_for(state="attached")
        assert ".coc" not in sheet.text_content(), "a keeper is not nudged to make a character"
        snap(page, SCREENS / f"keeper-welcome-{language}-{width}.png")

        page.fill("#say", words["line"])
        page.press("#say", "Enter")
        page.locator("#story li.npc").first.wait_for()
        card.wait_for(state="detached")
        snap(page, SCREENS / f"keeper-started-{language}-{width}.png")
    finally:
        context.close()
