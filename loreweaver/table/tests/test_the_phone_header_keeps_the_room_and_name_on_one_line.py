"""On a phone the table's header says the room and who you are on one line
(docs/decisions.md, "The browser table"): the controls wrap to the next row before the
name breaks, a Chinese name is never split letter by letter, and a name longer than the
screen ends in an ellipsis, whole in its tooltip. Chromium at 390 px, en and zh."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, SCREENS, boxes, seated, shoot

pytestmark = BROWSER_TESTS


@pytest.mark.parametrize(
    ("language", "room_name", "member"),
    [
        ("zh", "海港", "小明"),
        ("en", "harbour", "Alice"),
        ("en", "the-long-night-at-the-gull-rock-lighthouse", "Morgan"),
    ],
    ids=["zh", "en", "en-long"],
)
def test_the_room_and_name_read_on_one_line(browser, server, room, language, room_name, member):
    name = f"{room_name}-{room[-4:]}"
    page = seated(browser, server, server.env.mint(name, member), language, PHONE)
    title = page.locator("#room-name")
    title.filter(has_text=member).wait_for()
    size = page.evaluate("() => parseFloat(getComputedStyle(document.getElementById('room-name')).fontSize)")
    [[header], [box]] = boxes(page, ".bar", "#room-name")
    assert box["height"] <= size * 1.8, f"the name wraps: {box}"
    assert box["x"] + box["width"] <= header["x"] + header["width"] + 1, "the name stays on the screen"
    assert title.get_attribute("title") == f"{name} · {member}"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, SCREENS, f"phone-header-{room_name[:8]}", language)
    assert page.errors == []
    page.context.close()
