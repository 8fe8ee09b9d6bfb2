"""The room page of the operator console in Chromium: the SideQuest genre once (as its
control), the buttons that destroy something red like Django's own delete and Export
not, Export downloading the backup while the page stays, and the console's icon
served (docs/operations.md, "The operator console")."""

from __future__ import annotations

import json
from urllib.parse import urljoin

import pytest
from websockets.sync.client import connect

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, console_login, snap
from loreweaver.testing.operator_http import create_superuser
from loreweaver.testing.servers import room_id_of

DESKTOP = {"width": 1280, "height": 860}

pytestmark = BROWSER_TESTS


@pytest.fixture
def room_page(browser, server, room):
    """The room's page, open in a logged-in browser (the room has a keeper key)."""
    with connect(server.ws_url) as kay:
        kay.send(json.dumps({"type": "join", "key": server.env.mint(room, "Kay", "keeper")}))
        while json.loads(kay.recv(timeout=10))["type"] != "welcome":
            pass
    page, base = console_login(browser, server, create_superuser(server.env), DESKTOP)
    path = f"/admin/rooms/room/{room_id_of(server.env, room)}/change/"
    page.goto(base + path)
    yield page, base + path
    page.close()


def test_the_room_page_shows_the_sidequest_genre_once(room_page):
    page, _url = room_page
    labels = page.locator("label, .readonly-label, div.flex-container > label").all_inner_texts()
    assert [text for text in labels if "genre" in text.lower()] == ["SideQuest genre:"], labels
    assert page.locator("select[name=sidequest_genre]").count() == 1


def test_destructive_buttons_look_destructive_and_export_does_not(room_page):
    page, _url = room_page

    def background(selector: str) -> str:
        return page.locator(selector).evaluate("el => getComputedStyle(el).backgroundColor")

    red = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--delete-button-bg')")
    assert red.strip(), "Django's colour for delete buttons"
    export = background("button[value=export_backup]")
    for action in (
        "reset_story",
        "reset_chars",
        "reset_all",
        "delete_data_with_backup",
        "delete_room_with_backup",
    ):
        assert background(f"button[value={action}]") not in (export, "rgba(0, 0, 0, 0)"), action
    assert len({background(f"button[value={a}]") for a in ("reset_all", "delete_room_with_backup")}) == 1
    snap(page, SCREENS / "console-room-buttons-desktop.png", full_page=False)


def test_export_downloads_the_backup_and_stays_on_the_room_page(room_page):
    page, url = room_page
    with page.expect_download() as downloading:
        page.click("button[value=export_backup]")
    download = downloading.value
    assert download.suggested_filename.endswith(".zip")
    assert page.url == url, "still on the room page"
    assert page.locator("button[value=export_backup]").is_visible()


def test_the_console_serves_its_icon(room_page):
    page, _url = room_page
    icon = page.locator("link[rel=icon]").get_attribute("href")
    answer = page.request.get(urljoin(page.url, icon))
    assert answer.status == 200 and answer.headers["content-type"].startswith("image/")
