"""The browser table rejoins by itself after a dropped connection, but not after the
operator disconnected its member with a cool-down: its one retry is refused, and the
join screen says for how long (in the table's language). Screenshots of that screen go
to `build/screens/`."""

from __future__ import annotations

import pytest

from loreweaver.console.tests.test_a_disconnect_that_holds import member_links
from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.operator_http import OperatorSession

pytestmark = BROWSER_TESTS

SCREENS_AT = {"desktop": {"width": 1280, "height": 860}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize(
    ("language", "words"), [("en", "60 minutes"), ("zh", "60 分钟")], ids=["english", "chinese"]
)
def test_the_table_stops_rejoining_after_a_disconnect_with_a_cool_down(
    browser, server, room, language, words
):
    env = server.env
    operator = OperatorSession(server)
    for width, viewport in SCREENS_AT.items():
        name = f"Pat-{width}"
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(20_000)
        sockets: list[str] = []
        page.on("websocket", lambda socket, opened=sockets: opened.append(socket.url))
        page.goto(server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={env.mint(room, name)}")
        page.locator("#table-screen").wait_for(state="visible")
        disconnect, _revoke = member_links(operator, env, room, name)
        operator.post(disconnect, {"post": "yes", "keep_out": "60"})
        # The table's own retry comes back refused: the join screen shows why, and with
        # the key forgotten there is nothing left to retry with.
        page.locator("#join-screen").wait_for(state="visible")
        assert words in page.locator("#join-error").inner_text()
        assert page.locator("#table-screen").is_hidden(), "the join screen stands alone"
        assert len(sockets) == 2, sockets
        SCREENS.mkdir(parents=True, exist_ok=True)
        snap(page, SCREENS / f"table-kept-out-{language}-{width}.png", full_page=True)
        context.close()
