"""A player's first screen at the browser table says what to do (docs/decisions.md, "The
browser table"): a player with no character sees a welcome card in the story naming
the room and its rule systems, with a button for each system's make-a-character
command (`state.systems[].make_char`); one click makes the character and the card
goes. At a desktop's and a phone's width, in English and in Chinese."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS

WORDS = {
    "en": ("Welcome to", "Call of Cthulhu 7e", "Make your character"),
    "zh": ("欢迎来到", "克苏鲁的呼唤 第七版", "创建你的角色"),
}


@pytest.fixture(
    params=[{"width": 1280, "height": 860}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def viewport(request):
    return request.param


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_player_with_no_character_is_told_how_to_make_one(server, browser, room, viewport, language):
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        key = server.env.mint(room, "Tess")
        page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}&lang={language}")
        card = page.locator("#story #first-screen")
        card.wait_for()
        welcome, system, make = WORDS[language]
        text = card.inner_text()
        assert welcome in text and room in text and system in text and make in text, text
        assert card.locator("button", has_text=".coc").is_visible()
        assert card.locator("button", has_text=".dnd").is_visible()
        assert card.is_visible(), "the first screen shows it without opening anything"
        SCREENS.mkdir(parents=True, exist_ok=True)
        snap(page, SCREENS / f"first-screen-{language}-{viewport['width']}.png")

        card.locator("button", has_text=".coc").click()
        page.locator("#character-body").filter(has_text="Tess").wait_for(state="attached")
        card.wait_for(state="detached")
    finally:
        context.close()
