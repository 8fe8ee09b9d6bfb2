"""With no model connected the narration is the offline Keeper's, and the browser table
signs it so (docs/decisions.md, "The browser table"), for players as for keepers:
"Offline Keeper (no model)", not "AI Keeper". The server says so in the welcome
(`offline_keeper`, an addition to its features). Chromium, en and zh."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, seated

pytestmark = BROWSER_TESTS

SIGNED = {"en": "Offline Keeper (no model)", "zh": "离线守秘人（未接入模型）"}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_offline_keeper_signs_its_lines_as_such(browser, server, room, language):
    page = seated(browser, server, server.env.mint(room, "Pip"), language)
    page.fill("#say", "I look around the harbour.")
    page.press("#say", "Enter")
    signed = page.locator("#story li.kp:not(.draft) .who")
    signed.first.wait_for()
    assert signed.first.inner_text() == SIGNED[language]
    assert page.errors == []
    page.context.close()
