"""The sample adventure's card is offered while the offline Keeper plays; a keeper who
gives the room a model in chat (`.model set`, then `.model key`) takes it off every
keeper's page at once, theirs and another keeper's, without a reload
(docs/decisions.md, "Keys and keeper administration"). Screenshots go to
`build/screens/`."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, SCREENS, seated, shoot

pytestmark = BROWSER_TESTS


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_card_leaves_every_keepers_page_once_the_room_has_a_model(browser, server, room, language):
    kay = seated(browser, server, server.env.mint(room, "Kay", "keeper"), language)
    kim = seated(browser, server, server.env.mint(room, "Kim", "keeper"), language, PHONE)
    for page in (kay, kim):
        page.locator("#sample-card").wait_for()

    kay.fill("#say", ".model set openai house-model")
    kay.press("#say", "Enter")
    kay.locator("#story li", has_text="house-model").last.wait_for()
    assert kim.locator("#sample-card").is_visible(), "a model with no key yet: the offline Keeper plays on"

    kay.fill("#say", ".model key sk-room-key-0000000000001234")
    kay.press("#say", "Enter")
    for page in (kay, kim):
        page.locator("#sample-card").wait_for(state="detached")
    shoot(kay, SCREENS, "model-set-in-chat", language)
    shoot(kim, SCREENS, "model-set-in-chat", language)
    assert kay.errors == [] and kim.errors == []
    for page in (kay, kim):
        page.context.close()
