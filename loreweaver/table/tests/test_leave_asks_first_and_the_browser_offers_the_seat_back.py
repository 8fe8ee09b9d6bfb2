"""Leaving the table (docs/decisions.md, "The browser table"): "Leave" asks first, in a
dialog of the page in its language that the keyboard reaches (the safe answer,
"Stay", has the focus; Escape stays too), and a seat left is offered back on this
browser's join screen, "Rejoin <room> as <name>", in any tab of it, until the person
forgets it there. Chromium at 1280 and 390 px, en and zh."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, DESKTOP, PHONE, SCREENS, seated, shoot

pytestmark = BROWSER_TESTS

WORDS = {
    "en": {"ask": "Leave the table?", "rejoin": "Rejoin {room} as Pip", "forget": "Forget"},
    "zh": {"ask": "离开这张桌子？", "rejoin": "以 Pip 的身份重新加入 {room}", "forget": "忘记"},
}


@pytest.fixture(
    params=[(lang, view) for lang in ("en", "zh") for view in (DESKTOP, PHONE)],
    ids=["en-1280", "en-390", "zh-1280", "zh-390"],
)
def pip(request, browser, server, room):
    language, viewport = request.param
    page = seated(browser, server, server.env.mint(room, "Pip"), language, viewport)
    yield page, language
    page.context.close()


def _focused(page) -> str:
    return page.evaluate("document.activeElement?.id ?? ''")


def test_leave_asks_first_and_the_seat_can_be_taken_back(pip, room):
    page, language = pip
    words = WORDS[language]
    ask = page.locator("#leave-confirm")

    page.click("#leave")
    ask.wait_for(state="visible")
    assert ask.locator("h2").inner_text() == words["ask"]
    assert _focused(page) == "leave-stay", "the safe answer has the focus"
    shoot(page, SCREENS, "leave-confirm", language)
    page.keyboard.press("Escape")
    ask.wait_for(state="hidden")
    page.click("#leave")
    page.keyboard.press("Enter")  # on "Stay"
    ask.wait_for(state="hidden")
    assert page.locator("#table-screen").is_visible(), "a misclick costs nothing"

    page.click("#leave")
    page.keyboard.press("Tab")
    assert _focused(page) == "leave-go", "Leave is one Tab away"
    page.keyboard.press("Enter")
    offer = page.locator("#rejoin")
    offer.wait_for(state="visible")
    assert page.locator("#table-screen").is_hidden()
    back = offer.locator("button.rejoin")
    assert back.inner_text() == words["rejoin"].format(room=room)
    shoot(page, SCREENS, "rejoin-offer", language)

    # Another tab of the same browser is offered it too.
    other = page.context.new_page()
    other.goto(page.url)
    other.locator("#rejoin button.rejoin").wait_for()
    other.close()

    back.click()
    page.locator("#table-screen").wait_for(state="visible")
    assert page.locator("#room-name").inner_text().endswith("Pip")

    page.click("#leave")
    page.click("#leave-go")
    offer.locator("button.forget", has_text=words["forget"]).click()
    offer.wait_for(state="hidden")
    page.reload()
    page.locator("#join-screen").wait_for(state="visible")
    assert offer.is_hidden(), "a forgotten seat is not offered again"
    assert page.errors == []
