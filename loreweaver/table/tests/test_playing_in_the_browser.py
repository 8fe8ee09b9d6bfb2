"""The browser table in a real Chromium (Debian's, driven by Playwright): a keeper and
two players (one at a phone's width) in three browser contexts play a scene with the
offline Keeper: join from an invite link, a roll, a streamed Keeper turn, an upload
the other player sees, a panel choice, a reconnect that draws no line twice, and no
console errors. Screenshots of each screen go to `build/screens/`."""

from __future__ import annotations

import re

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.fake_llm import png
from loreweaver.testing.servers import dedicated_server

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
TIMEOUT = 20_000

pytestmark = BROWSER_TESTS

offline_server = dedicated_server()


class Seat:
    """One person at the table: a browser context, its page, and what its console said."""

    def __init__(self, browser, server, key: str, viewport: dict, name: str) -> None:
        self.name = name
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        # The console's "Failed to load resource" does not say which; this does.
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(f"{r.status} {r.url}"))
        self.sockets = []
        self.page.route_web_socket(re.compile(".*"), self._through)
        self.base = server.ws_url.replace("ws://", "http://")
        self.page.goto(f"{self.base}#key={key}")
        self.page.locator("#table-screen").wait_for(state="visible")

    def _through(self, route) -> None:
        self.sockets.append(route)
        route.connect_to_server()

    def say(self, text: str) -> None:
        self.page.fill("#say", text)
        self.page.press("#say", "Enter")

    def story(self):
        return self.page.locator("#story > li")

    def shoot(self, screen: str) -> None:
        SCREENS.mkdir(parents=True, exist_ok=True)
        snap(self.page, SCREENS / f"{screen}-{self.name}.png", full_page=True)


def test_a_keeper_and_two_players_play_a_scene_in_the_browser(browser, offline_server, room, tmp_path):
    env = offline_server.env
    SCREENS.mkdir(parents=True, exist_ok=True)
    for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        join_page = browser.new_page(viewport=viewport)
        join_page.goto(offline_server.ws_url.replace("ws://", "http://"))
        snap(join_page, SCREENS / f"join-{width}.png")
    chinese = browser.new_page(viewport=PHONE)
    chinese.goto(offline_server.ws_url.replace("ws://", "http://") + "#lang=zh")
    assert chinese.locator("#join-form button[type=submit]").inner_text() == "加入桌面"
    assert chinese.locator("html").get_attribute("lang") == "zh-Hans"
    snap(chinese, SCREENS / "join-phone-zh.png")
    chinese.close()
    join_page.fill("#join-key", "not-a-key")
    join_page.click("button[type=submit]")
    join_page.locator("#join-error").filter(has_text=re.compile(".+")).wait_for()
    join_page.close()

    kay = Seat(browser, offline_server, env.mint(room, "Kay", "keeper"), DESKTOP, "desktop-keeper")
    pip = Seat(browser, offline_server, env.mint(room, "Pip"), DESKTOP, "desktop")
    lee = Seat(browser, offline_server, env.mint(room, "Lee"), PHONE, "phone")
    assert pip.page.locator("#room-name").inner_text().endswith("Pip")

    # A roll, seen by everyone as a dice card.
    pip.say(".r 1d20")
    for seat in (kay, pip, lee):
        seat.page.locator(".dice", has_text="1d20").first.wait_for()

    # A character, then a Keeper turn that streams in and closes as one line.
    lee.say(".coc Lee")
    lee.page.locator("#toggle-side").click()  # at a phone's width the sheet is a drawer
    lee.page.locator("#character-body", has_text="Lee").wait_for()
    lee.page.locator("#toggle-side").click()  # and back to the story
    pip.say("I listen at the harbour office door.")
    for seat in (kay, pip, lee):
        seat.page.locator("#story > li.kp:not(.draft)").first.wait_for()
        seat.page.locator("#busy").wait_for(state="hidden")
    assert lee.page.locator("#story > li.draft").count() == 0

    # An upload by one player appears in the other's gallery.
    picture = tmp_path / "harbour.png"
    picture.write_bytes(png(16, 16, (40, 90, 160)))
    pip.page.set_input_files("#upload", str(picture))
    pip.page.locator("#upload-progress", has_text="harbour.png is in the room.").wait_for()
    lee.page.locator("#toggle-side").click()  # the pictures are in the drawer
    lee.page.locator("#gallery img[src^='blob:']").wait_for()
    lee.page.locator("#toggle-side").click()
    pip.page.locator("#upload-progress").wait_for(state="hidden")  # done: the notice goes

    # A module panel: the keeper turns it on, a player picks a choice.
    kay.say(".panels enable harbour-clues")
    pip.page.locator("[data-panel='harbour-clues/clue-board'] button", has_text="The harbour office").click()
    for seat in (kay, pip, lee):
        seat.page.locator("#story > li.player", has_text="I go to the harbour office.").wait_for()
    assert kay.page.locator("[data-panel='harbour-clues/keeper-checklist']").count() == 1
    assert pip.page.locator("[data-panel='harbour-clues/keeper-checklist']").count() == 0

    for seat in (kay, pip, lee):
        seat.shoot("table")

    # A reconnect: the replay draws no line twice.
    before = lee.page.eval_on_selector_all(
        "#story > li", "items => items.map(i => i.dataset.id || i.className)"
    )
    lee.sockets[-1].close()
    lee.page.locator("#connection", has_text=re.compile("reconnect|重连", re.I)).wait_for()
    lee.page.locator("#connection", has_text=re.compile("^Connected$")).wait_for()
    pip.say("A gull screams overhead.")
    lee.page.locator("#story > li", has_text="A gull screams overhead.").wait_for()
    after = lee.page.eval_on_selector_all(
        "#story > li", "items => items.map(i => i.dataset.id || i.className)"
    )
    assert after[: len(before)] == before
    ids = [entry for entry in after if re.fullmatch(r"[0-9a-f-]{8,}", entry)]
    assert len(ids) == len(set(ids)), "a line drawn twice after the reconnect"
    assert after.count("dice-line") == before.count("dice-line")

    for seat in (kay, pip, lee):
        assert seat.errors == [], f"{seat.name}: {seat.errors}"
        seat.context.close()


def test_a_keeper_invites_a_player_from_the_keeper_screens(browser, offline_server, room):
    env = offline_server.env
    kay = Seat(browser, offline_server, env.mint(room, "Kay", "keeper"), DESKTOP, "keeper")
    pip = Seat(browser, offline_server, env.mint(room, "Pip"), PHONE, "phone")
    assert pip.page.locator("#open-keeper").is_hidden(), "a player has no keeper screens"

    kay.page.click("#open-keeper")
    dialog = kay.page.locator("#keeper-screens")
    dialog.locator(".keys li", has_text="keeper").first.wait_for()
    dialog.locator("input[id^=k-]").first.fill("Newcomer")
    dialog.locator("button[type=submit]", has_text="Mint").click()
    link = dialog.locator("#invite-link")
    link.wait_for()
    invite = link.input_value()
    assert "/#key=" in invite
    SCREENS.mkdir(parents=True, exist_ok=True)
    for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        kay.page.set_viewport_size(viewport)
        for screen in ("invites", "model", "backups", "skills", "rules", "panels", "audio"):
            if screen != "invites" or width == "phone":
                dialog.locator(f"[data-screen={screen}]").click()
            dialog.locator(f"[data-screen={screen}][aria-selected=true]").wait_for()
            if screen == "model":
                assert dialog.locator("input[type=password]").get_attribute("autocomplete") == "new-password"
            snap(kay.page, SCREENS / f"keeper-{screen}-{width}.png")
    dialog.locator("[data-screen=invites]").click()
    assert dialog.locator("#invite-link").count() == 0, "a minted key is shown once"
    kay.page.click("#keeper-close")

    newcomer = browser.new_context(viewport=PHONE).new_page()
    newcomer.set_default_timeout(TIMEOUT)
    newcomer.goto(invite)
    newcomer.locator("#room-name", has_text="Newcomer").wait_for()
    assert "#key=" not in newcomer.url, "the key leaves the address bar"
    snap(newcomer, SCREENS / "table-newcomer-phone.png")
    assert kay.errors == [] and pip.errors == []
