"""Every page of the operator console at a phone's width (390 px) in Chromium, in
English and Chinese: the index, each kind of record's list, its add page and the page of
one of its records, the backups and their confirmations, the room page and what its
links and buttons open. None is wider than the window (nothing to scroll sideways to,
no action cut off). Screenshots go to `build/screens/console-fit-*`."""

from __future__ import annotations

import json
import re
from contextlib import ExitStack

import pytest
from websockets.sync.client import connect

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, console_login, horizontal_overflow, snap
from loreweaver.testing.operator_http import create_superuser
from loreweaver.testing.servers import room_id_of

PHONE = {"width": 390, "height": 844}

pytestmark = BROWSER_TESTS


def _until(socket, answer: str) -> None:
    while not (
        (frame := json.loads(socket.recv(timeout=10))).get("speaker") == "system"
        and answer in frame.get("text", "")
    ):
        pass


@pytest.fixture(scope="module")
def furnished(server):
    """A room with every kind of record the console lists (a keeper, a player with a
    character that carries things, a quest, an NPC, a note, a checkpoint backup) and
    a staff login; the room's name and id, and the login. Both stay online, so that
    the room page lists them with their links."""
    room = "fits-a-phone"
    with ExitStack() as sockets:
        kay, pat = (sockets.enter_context(connect(server.ws_url)) for _ in range(2))
        for socket, key in (
            (pat, server.env.mint(room, "Pat Quellingsworth-Underhill")),
            (kay, server.env.mint(room, "Kay", "keeper")),
        ):
            socket.send(json.dumps({"type": "join", "key": key}))
        for socket, line, answer in (
            (pat, ".coc Mara", "Mara"),
            (pat, ".inv add Lantern | tool | Ruth's storm lantern, dented but dry", "Lantern"),
            (pat, ".money +12", "12"),
            (kay, ".quest add The dark lighthouse | Find out why the lamp went dark", "lighthouse"),
            (kay, ".npc add Ruth | the lighthouse keeper's widow | she lit the false lamp", "Ruth"),
            (kay, ".note The false lamp is in the cellar", "Noted"),
            (kay, ".save first-night-at-the-lighthouse-checkpoint", "first-night"),
        ):
            socket.send(json.dumps({"type": "input", "text": line}))
            _until(socket, answer)
        yield room, room_id_of(server.env, room), create_superuser(server.env)


def _slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.removeprefix("/admin/").lower()).strip("-") or "index"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_every_console_page_fits_a_phones_width(browser, server, furnished, locale):
    SCREENS.mkdir(parents=True, exist_ok=True)
    _room, room_id, operator = furnished
    page, base = console_login(browser, server, operator, PHONE, locale)
    lang = locale[:2]
    too_wide: dict[str, str] = {}

    def visit(path: str) -> None:
        page.goto(base + path)
        page.locator("#content").wait_for()
        if overflow := horizontal_overflow(page):
            too_wide[path] = overflow
        snap(page, SCREENS / f"console-fit-{_slug(path)}-{lang}-390.png", full_page=True)

    page.goto(f"{base}/admin/")
    lists = page.eval_on_selector_all(
        "#content-main a[href^='/admin/']", "links => [...new Set(links.map(a => a.getAttribute('href')))]"
    )
    assert len(lists) >= 15, lists
    visit("/admin/")
    for path in lists:
        visit(path)
        if path.endswith("/add/"):
            continue
        first = page.locator("#result_list tbody th a").first
        if first.count():
            visit(first.get_attribute("href"))

    for verb in ("restore", "delete"):
        visit("/admin/rooms/room/backups/")
        visit(page.locator(f"a[href$='/{verb}/']").first.get_attribute("href"))
    visit(f"/admin/rooms/room/{room_id}/change/")
    for link in ("disconnect", "revoke"):  # by address: their words are the page's language
        hrefs = page.locator(f"#content a[href*='/{link}/']")
        if hrefs.count():
            visit(hrefs.first.get_attribute("href"))
            page.goto(f"{base}/admin/rooms/room/{room_id}/change/")
    page.click("button[value=reset_all]")
    page.locator("input[type=submit].danger").wait_for()  # "Yes, …" in the page's language
    if overflow := horizontal_overflow(page):
        too_wide["reset confirmation"] = overflow
    snap(page, SCREENS / f"console-fit-reset-confirm-{lang}-390.png", full_page=True)

    page.goto(f"{base}/admin/rooms/accesskey/add/?room={room_id}")
    page.fill("#id_name", f"Guest of a phone {lang}")
    page.click("input[name=_save]")
    page.locator("#minted-panel").wait_for()
    if overflow := horizontal_overflow(page):
        too_wide["mint panel"] = overflow
    snap(page, SCREENS / f"console-fit-minted-{lang}-390.png", full_page=True)
    page.close()
    assert not too_wide, "\n".join(f"{path}: {why}" for path, why in too_wide.items())
