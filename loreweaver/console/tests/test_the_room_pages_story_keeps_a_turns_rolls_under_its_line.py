"""On the console's room page in Chromium, a turn's rolls and lines sit under the story
line they followed, at its text's indent, not out at the form's value column where
Django's aligned forms put every list (docs/operations.md, "The operator console"); a
roll shows once. Desktop and phone width; screenshots go to `build/screens/`."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, SCREENS, boxes, console_login, snap
from loreweaver.testing.operator_http import create_superuser
from loreweaver.testing.servers import room_id_of

pytestmark = BROWSER_TESTS


def _play(server, room: str) -> None:
    """A line, then two rolls and a new investigator, as a player types them."""
    with connect(server.ws_url) as pat:
        pat.send(json.dumps({"type": "join", "key": server.env.mint(room, "Pat")}))
        for text, wanted in (("I search the boat", "state"), (".r 1d6", "dice"), (".coc Pat Jones", "state")):
            pat.send(json.dumps({"type": "input", "text": text}))
            while json.loads(pat.recv(timeout=30))["type"] != wanted:
                pass


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 860}, PHONE], ids=["desktop", "phone"])
def test_a_turns_rolls_sit_under_the_line_they_followed(browser, server, room, viewport):
    _play(server, room)
    page, base = console_login(browser, server, create_superuser(server.env), viewport)
    page.goto(f"{base}/admin/rooms/room/{room_id_of(server.env, room)}/change/")
    story = page.locator("ol.transcript")
    story.locator("li.dice", has_text="1d6").wait_for()
    assert story.locator("li.dice", has_text="1d6").count() == 1
    story.scroll_into_view_if_needed()
    lines, events = boxes(page, "ol.transcript > li > p", "ol.transcript > li > ul")
    assert events, "the turn's rolls are listed"
    indent = min(box["x"] for box in lines)
    assert all(indent <= box["x"] <= indent + 40 for box in events), (lines, events)
    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(story, SCREENS / f"console-room-story-{viewport['width']}.png")
    page.context.close()
