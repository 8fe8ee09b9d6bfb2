"""The keeper screens' tabs follow the WAI-ARIA tabs pattern (docs/decisions.md, "The
browser table"): one tab stop, the chosen tab; the arrow keys move to the next or
previous tab and show it, wrapping round; Home and End go to the first and the last.
Chromium."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, seated

pytestmark = BROWSER_TESTS


def _at(page) -> tuple[str, ...]:
    """The focused tab, the tab shown, and the tabs a Tab key stops at."""
    return tuple(
        page.evaluate(
            """() => [document.activeElement.dataset.screen,
                  document.querySelector('[role=tab][aria-selected=true]').dataset.screen,
                  [...document.querySelectorAll('[role=tab]')].filter((tab) => tab.tabIndex === 0)
                      .map((tab) => tab.dataset.screen).join()]"""
        )
    )


def test_arrow_keys_move_between_the_keeper_tabs(browser, server, room):
    page = seated(browser, server, server.env.mint(room, "Kay", "keeper"))
    page.click("#open-keeper")
    page.focus("#keeper-screens [data-screen=invites]")
    assert _at(page) == ("invites", "invites", "invites")
    page.keyboard.press("ArrowRight")
    assert _at(page) == ("model", "model", "model")
    page.locator("#keeper-models option").first.wait_for(state="attached")  # the model screen is shown
    page.keyboard.press("End")
    assert _at(page) == ("audio", "audio", "audio")
    page.keyboard.press("ArrowRight")
    assert _at(page) == ("invites", "invites", "invites"), "the last wraps round to the first"
    page.keyboard.press("ArrowLeft")
    assert _at(page) == ("audio", "audio", "audio")
    page.keyboard.press("Home")
    assert _at(page) == ("invites", "invites", "invites")
    tab = page.locator("#keeper-screens [data-screen=invites]")
    assert tab.get_attribute("aria-controls") == "keeper-body"
    assert page.locator("#keeper-body").get_attribute("aria-labelledby") == tab.get_attribute("id")
    assert page.errors == []
    page.context.close()
