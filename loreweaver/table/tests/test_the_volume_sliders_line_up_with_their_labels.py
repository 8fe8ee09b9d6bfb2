"""The sound section's three volume sliders start in one line, each level with its
layer's name (docs/decisions.md, "The browser table"), in English and Chinese.
Chromium at 1280 px."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, boxes, seated

pytestmark = BROWSER_TESTS


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_volume_sliders_line_up_with_their_labels(browser, server, room, language):
    page = seated(browser, server, server.env.mint(room, "Pip"), language)
    assert page.locator("#audio-layers label").count() == 3
    sliders, names = boxes(page, "#audio-layers label input", "#audio-layers label span")
    assert len({round(box["x"]) for box in sliders}) == 1, f"the sliders start apart: {sliders}"
    assert len({round(box["width"]) for box in sliders}) == 1, sliders
    for name, slider in zip(names, sliders, strict=True):
        middle = slider["y"] + slider["height"] / 2
        assert abs(name["y"] + name["height"] / 2 - middle) <= 2, f"{name} is not level with {slider}"
    assert page.errors == []
    page.context.close()
