"""On a phone the "Sheet" button opens the drawer and, now "Story", takes the page back;
once back, it must not look pressed (docs/decisions.md, "The browser table"): a touch
screen keeps a tapped button hovered, so a hover colour stayed on it. Chromium at 390
px with touch."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, seated

pytestmark = BROWSER_TESTS

PLAIN = "rgb(255, 255, 255)"


def _background(page) -> str:
    return page.evaluate("getComputedStyle(document.getElementById('toggle-side')).backgroundColor")


def test_the_phone_sheet_button_is_not_left_pressed(browser, server, room):
    page = seated(browser, server, server.env.mint(room, "Pip"), "en", PHONE, has_touch=True, is_mobile=True)
    toggle = page.locator("#toggle-side")
    assert _background(page) == PLAIN
    toggle.tap()
    page.locator("#side.open").wait_for()
    toggle.tap()
    page.locator("#story").wait_for(state="visible")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert _background(page) == PLAIN, "back at the story, the button looks as before"
    assert page.errors == []
    page.context.close()
