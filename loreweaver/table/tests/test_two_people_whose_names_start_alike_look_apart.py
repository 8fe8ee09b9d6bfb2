"""Without portraits, people whose names start alike still look apart at the table
(docs/decisions.md, "The browser table"): each name's letter sits on a colour of its
own, and a Chinese name shows its last character, its given name (小明 and 小红 read
明 and 红, not 小 twice). Chromium at 1280 px."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, seated, shoot

pytestmark = BROWSER_TESTS

_AVATARS = """() => Object.fromEntries([...document.querySelectorAll("#online li")].map((item) => {
    const avatar = item.querySelector(".avatar.initial");
    const look = [avatar.textContent, getComputedStyle(avatar).backgroundColor];
    return [item.querySelector("bdi").textContent, look];
}))"""


def _avatars_of(page, names: list[str]) -> dict[str, list[str]]:
    for name in names:
        page.locator("#online li bdi", has_text=name).first.wait_for()
    return page.evaluate(_AVATARS)


def test_names_that_start_alike_get_their_own_colours_and_letters(browser, server, room):
    keeper = seated(browser, server, server.env.mint(room, "Keeper", "keeper"), "en")
    kim = seated(browser, server, server.env.mint(room, "Kim"), "en")
    ming = seated(browser, server, server.env.mint(room, "小明"), "zh")
    hong = seated(browser, server, server.env.mint(room, "小红"), "zh")
    seen = _avatars_of(keeper, ["Keeper", "Kim", "小明", "小红"])
    assert seen["Keeper"][0] == seen["Kim"][0] == "K"
    assert seen["Keeper"][1] != seen["Kim"][1], "two K's on one colour"
    assert (seen["小明"][0], seen["小红"][0]) == ("明", "红")
    shoot(keeper, SCREENS, "avatars", "en")
    assert keeper.errors == []
    for page in (keeper, kim, ming, hong):
        page.context.close()
