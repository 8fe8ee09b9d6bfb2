"""The operator console in a real Chromium (Debian's, driven by Playwright), at a
desktop's and a phone's width: the room page with a member online, the mint panel and
its copy button, and the model page. Screenshots go to `build/screens/`
(docs/operations.md, "The operator console")."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, console_login, snap
from loreweaver.testing.operator_http import create_superuser
from loreweaver.testing.servers import room_id_of

SIZES = {"desktop": {"width": 1280, "height": 860}, "phone": {"width": 390, "height": 844}}

pytestmark = BROWSER_TESTS


@pytest.fixture
def operator(server):
    """A staff login's user name and password on the test server."""
    return create_superuser(server.env)


def _fits(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] < page.viewport_size["width"]


def test_the_room_page_mint_panel_and_model_page_at_desktop_and_phone_width(browser, server, operator, room):
    SCREENS.mkdir(parents=True, exist_ok=True)
    with connect(server.ws_url) as pat:
        pat.send(json.dumps({"type": "join", "key": server.env.mint(room, "Pat")}))
        pat.send(json.dumps({"type": "input", "text": "I knock on the **oak** door."}))
        while json.loads(pat.recv(timeout=10)).get("text") != "I knock on the **oak** door.":
            pass
        room_id = room_id_of(server.env, room)
        for size, viewport in SIZES.items():
            page, base = console_login(browser, server, operator, viewport)
            page.goto(f"{base}/admin/rooms/room/{room_id}/change/")
            online = page.locator("tr", has_text="Pat")
            assert "WebSocket" in online.first.inner_text()
            assert page.locator("ol.transcript strong", has_text="oak").is_visible(), "rendered text"
            assert page.locator("button[value=export_backup]").is_visible() and _fits(
                page, "button[value=export_backup]"
            )
            snap(page, SCREENS / f"console-room-{size}.png", full_page=True)

            page.goto(f"{base}/admin/rooms/accesskey/add/?room={room_id}")
            page.fill("#id_name", f"Guest {size}")
            page.click("input[name=_save]")
            panel = page.locator("#minted-panel")
            panel.wait_for()
            assert (
                page.locator("#minted-invite")
                .inner_text()
                .startswith(f'You are invited to the table "{room}"')
            )
            page.click("button[data-copy=minted-key]")
            page.locator(".copied").wait_for()  # copied, or selected for Ctrl-C
            assert _fits(page, "button[data-copy=minted-invite]")
            snap(page, SCREENS / f"console-mint-{size}.png", full_page=True)

            page.goto(f"{base}/admin/keeper/modelsetting/")
            assert page.locator("text=In force now").is_visible() and "server-wide" in page.content()
            snap(page, SCREENS / f"console-model-{size}.png", full_page=True)
            page.close()


def test_a_characters_items_and_the_rooms_quests_read_in_the_console(browser, server, operator, room):
    SCREENS.mkdir(parents=True, exist_ok=True)
    with connect(server.ws_url) as pat, connect(server.ws_url) as kay:
        for socket, key in (
            (pat, server.env.mint(room, "Pat")),
            (kay, server.env.mint(room, "Kay", "keeper")),
        ):
            socket.send(json.dumps({"type": "join", "key": key}))
        for socket, line, answer in (
            (pat, ".coc Mara", "Mara"),
            (pat, ".inv add Lantern | tool | Ruth's storm lantern", "Lantern"),
            (pat, ".money +12", "12"),
            (kay, ".quest add The dark lighthouse | Find out why the lamp went dark", "lighthouse"),
        ):
            socket.send(json.dumps({"type": "input", "text": line}))
            while not (
                (frame := json.loads(socket.recv(timeout=10))).get("speaker") == "system"
                and answer in frame.get("text", "")
            ):
                pass
    for size, viewport in SIZES.items():
        page, base = console_login(browser, server, operator, viewport)
        page.goto(f"{base}/admin/keeper/character/?q=Mara")
        page.locator("#result_list a", has_text="Mara").first.click()
        assert page.locator("input[name=items-0-description]").input_value() == "Ruth's storm lantern"
        assert page.locator("#id_money").input_value() == "12"
        snap(page, SCREENS / f"console-character-items-{size}.png", full_page=True)
        page.goto(f"{base}/admin/keeper/quest/?q=lighthouse")
        # This room's: the worker's server may hold another test's quest of that name.
        row = page.locator("#result_list tr", has_text="The dark lighthouse").filter(has_text=room)
        assert "in progress" in row.inner_text().lower()
        snap(page, SCREENS / f"console-quests-{size}.png", full_page=True)
        page.close()
