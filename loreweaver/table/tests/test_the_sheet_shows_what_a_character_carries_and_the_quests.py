"""The browser table's sidebar shows what the player's character carries, its money and
the room's quests (docs/decisions.md, "Items, money and quests"): a used-up item stays
on the sheet marked as such, a keeper-only quest shows on the keeper's page marked
"keepers only" and never on a player's. In Chromium, a player at desktop width in
English and a keeper at phone width in Chinese."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS


def _seat(browser, server, key: str, language: str, width: int):
    page = browser.new_context(viewport={"width": width, "height": 860}).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={key}")
    page.locator("#table-screen").wait_for(state="visible")
    return page


def _say(page, line: str, answer: str) -> None:
    """Send a dot command and wait for its answer in the story."""
    page.fill("#say", line)
    page.press("#say", "Enter")
    page.locator("#story li").filter(has_text=answer).last.wait_for()


def _shoot(page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(page, SCREENS / f"sheet-{name}-{page.viewport_size['width']}.png", full_page=True)


def test_a_player_sees_their_things_money_and_the_open_quests_and_a_keeper_the_secret_one(
    browser, server, room
):
    pip = _seat(browser, server, server.env.mint(room, "Pip"), "en", 1280)
    kay = _seat(browser, server, server.env.mint(room, "Kay", "keeper"), "zh", 390)
    _say(pip, ".coc Mara", "made Mara")
    _say(pip, ".inv add Lantern", "Lantern")
    _say(pip, ".inv add Flare x2 | consumable | A red signal flare", "Flare")
    _say(pip, ".money +12", "12")
    _say(kay, ".quest add The dark lighthouse | Find out why the lamp went dark", "The dark lighthouse")
    _say(kay, ".quest secret Silas's debt | He owes the smugglers", "Silas's debt")

    items = pip.locator("#character-body .items li")
    items.filter(has_text="Flare").wait_for()
    assert items.all_inner_texts() == ["Lantern", "Flare ×2"]
    assert items.filter(has_text="Flare").get_attribute("title") == "A red signal flare"
    assert pip.locator("#character-body .money").inner_text() == "12 dollars"
    quests = pip.locator("#quests li")
    quests.first.wait_for()
    assert quests.count() == 1, "a player never sees a keeper-only quest"
    assert "The dark lighthouse" in quests.first.inner_text() and "in progress" in quests.first.inner_text()
    assert "Silas" not in pip.locator("#table-screen").inner_text()

    _say(pip, ".inv use Flare", "Flare")
    _say(pip, ".inv use Flare", "Flare")
    pip.locator("#character-body .items li.used-up").filter(has_text="Flare ×0").wait_for()
    _shoot(pip, "player-en")

    secret = kay.locator("#quests li").filter(has_text="Silas's debt")
    secret.locator(".secret").filter(has_text="仅守秘人可见").wait_for(state="attached")
    assert "进行中" in kay.locator("#quests li").filter(has_text="The dark lighthouse").inner_text()
    kay.click("#toggle-side")  # at a phone's width the sidebar is a drawer
    _shoot(kay, "keeper-zh")
    pip.context.close()
    kay.context.close()
