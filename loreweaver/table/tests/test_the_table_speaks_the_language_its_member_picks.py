"""The browser table's language picker (docs/rules.md, "The room's language"): the page
starts in the room's language (the welcome's) whatever language the join form had, the
picker on the table screen switches the page's words and the sheet's labels at once
(no Leave, no rejoin) while the story stays in the room's language, and the choice is
remembered by this browser across a reload. Chromium, against a real server."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS


def _open(context, server, key: str):
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}&lang=en")
    page.locator("#table-screen").wait_for(state="visible")
    return page, errors


def _words(page, lang: str, send: str, sanity: str) -> None:
    """The page reads in `lang`: its own words, and the sheet's label from the server."""
    page.wait_for_function(f"() => document.documentElement.lang === {lang!r}")
    assert page.locator("#say-form button[type=submit]").inner_text() == send
    page.locator("#character-body", has_text=sanity).wait_for()


def test_the_picker_switches_the_page_live_and_is_remembered(browser, server, room):
    keeper, keeper_errors = _open(browser.new_context(), server, server.env.mint(room, "Kay", "keeper"))
    keeper.fill("#say", ".language zh")
    keeper.press("#say", "Enter")
    keeper.locator("#story", has_text="房间语言已切换为中文。").wait_for()
    assert keeper_errors == []
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page, errors = _open(context, server, server.env.mint(room, "Pip"))

    # Joined with an English form, the page starts in the room's language.
    page.wait_for_function("() => document.documentElement.lang === 'zh-Hans'")
    assert page.locator("#table-language").input_value() == "zh"
    page.fill("#say", ".coc Pip")
    page.press("#say", "Enter")
    _words(page, "zh-Hans", "发送", "理智")

    page.select_option("#table-language", "en")
    _words(page, "en", "Send", "Sanity")
    assert page.locator("#join-screen").is_hidden(), "no Leave, no rejoin"
    assert "理智" not in page.locator("#character-body").inner_text()
    # The story stays in the room's language.
    page.fill("#say", ".language")
    page.press("#say", "Enter")
    page.locator("#story", has_text="房间语言：中文。").wait_for()

    page.reload()
    page.locator("#table-screen").wait_for(state="visible")
    _words(page, "en", "Send", "Sanity")
    assert page.locator("#table-language").input_value() == "en"
    assert errors == []

    # Another browser, with no choice of its own, starts in the room's language.
    other, other_errors = _open(browser.new_context(), server, server.env.mint(room, "Bo"))
    other.wait_for_function("() => document.documentElement.lang === 'zh-Hans'")
    assert other.locator("#say-form button[type=submit]").inner_text() == "发送"
    assert other_errors == []
