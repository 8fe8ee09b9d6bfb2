"""Every roll is shown once at the browser table, as its dice card (docs/decisions.md,
"The browser table"): the text line a command's roll is also answered with (kept on
the wire for clients that draw no cards) is not drawn again under the card; what only
that line said (a sanity check's loss) is on the card, and the line's words are the
card's description."""

from __future__ import annotations

import re

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS


def _say(page, text: str) -> None:
    page.fill("#say", text)
    page.press("#say", "Enter")


def test_a_players_rolls_are_each_one_card_and_no_text_line(server, browser, room):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        key = server.env.mint(room, "Tess")
        page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}")
        page.locator("#table-screen").wait_for(state="visible")
        _say(page, ".coc Tess")
        page.locator("#character-body").filter(has_text="Tess").wait_for()

        for line, count in ((".ra spot hidden", 1), (".r 1d20", 2), (".sc 1/1d6", 3)):
            _say(page, line)
            page.locator("#story .dice-line").nth(count - 1).wait_for()
            _say(page, ".jrrp")  # a later answer: the roll's own line would be drawn by now
            page.locator("#story li.system").filter(has_text="luck").nth(count - 1).wait_for()
        lines = page.locator("#story li.system").all_inner_texts()
        repeated = [t for t in lines if "Spot Hidden" in t or "rolls 1d20" in t or "sanity" in t]
        assert not repeated, "a roll's text line is drawn under its card"
        cards = page.locator("#story .dice-line")
        assert cards.count() == 3
        assert "Spot Hidden" in cards.nth(0).get_attribute("title")
        assert re.search(r"loses \d+ \(\d+ left\)", cards.nth(2).inner_text()), (
            "the sanity loss is on the card"
        )
        SCREENS.mkdir(parents=True, exist_ok=True)
        snap(page, SCREENS / "roll-card-1280.png")
    finally:
        context.close()
