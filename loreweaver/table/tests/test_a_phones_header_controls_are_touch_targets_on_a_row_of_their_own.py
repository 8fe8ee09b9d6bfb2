"""On a phone the table's header controls are touch targets, 44 px high, on a row of
their own under the room and the connection: a keeper's four (keeper screens, sheet,
language, leave) share that one row in English as in Chinese, where "Leave" used to
wrap onto a third (docs/decisions.md, "The browser table"). Chromium at 390 px;
screenshots go to `build/screens/`."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, SCREENS, boxes, seated, shoot

pytestmark = BROWSER_TESTS


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("role", ["keeper", "player"])
def test_the_controls_are_44_px_high_on_one_row_under_the_title(browser, server, room, language, role):
    page = seated(browser, server, server.env.mint(room, "Kay", role), language, PHONE)
    page.locator("#room-name").filter(has_text="Kay").wait_for()
    if role == "keeper":
        page.locator("#open-keeper").wait_for()
    [[title], controls] = boxes(page, "#room-name", ".bar button:not([hidden]), .bar select")
    assert len(controls) == (4 if role == "keeper" else 3), controls
    assert all(box["height"] >= 44 for box in controls), controls
    assert len({round(box["y"]) for box in controls}) == 1, f"one row: {controls}"
    assert all(box["y"] >= title["y"] + title["height"] for box in controls), "under the title"
    assert max(box["x"] + box["width"] for box in controls) <= PHONE["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, SCREENS, f"phone-header-{role}", language)
    assert page.errors == []
    page.context.close()
