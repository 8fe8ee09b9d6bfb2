"""Turning a skill on or off in the keeper screens answers (docs/decisions.md, "The
browser table"): the status line says the skill is now on (or off) in this room, in
the page's language, and the focus stays on its box, though the list is drawn anew
from the server's answer. Chromium, en and zh."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, seated

pytestmark = BROWSER_TESTS

WORDS = {
    "en": {
        "skill": "Clue trail",
        "on": "Clue trail is on in this room.",
        "off": "Clue trail is off in this room.",
    },
    "zh": {"skill": "线索链", "on": "本房间已开启 线索链。", "off": "本房间已关闭 线索链。"},
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_turning_a_skill_on_says_so(browser, server, room, language):
    words = WORDS[language]
    page = seated(browser, server, server.env.mint(room, "Kay", "keeper"), language)
    page.click("#open-keeper")
    page.click("#keeper-screens [data-screen=skills]")
    box = page.locator("#keeper-body .skills li", has_text=words["skill"]).locator("input[type=checkbox]")
    was_on = box.is_checked()
    box.focus()
    page.keyboard.press("Space")
    page.locator("#keeper-status", has_text=words["off" if was_on else "on"]).wait_for()
    assert box.is_checked() is not was_on
    assert page.evaluate("document.activeElement.type") == "checkbox"
    assert page.evaluate("document.activeElement.closest('li').textContent").startswith(words["skill"])
    page.keyboard.press("Space")
    page.locator("#keeper-status", has_text=words["on" if was_on else "off"]).wait_for()
    assert page.errors == []
    page.context.close()
