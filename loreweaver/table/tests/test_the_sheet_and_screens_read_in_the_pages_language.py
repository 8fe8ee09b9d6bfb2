"""The browser table shows the words of the page's language where it used to show ids
(docs/rules.md, "What the sheet shows"): the sheet names the characteristics and the
rule system as the pack does (the keys stay `STR`... on the wire), the audio desk's
sliders and their accessible names, the keeper's Rules screen, and one word for a
quest's status in the sidebar and in `.quest`'s answer. In Chromium, en at desktop
width and zh at a phone's."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS

WORDS = {
    "en": {
        "system": "Call of Cthulhu 7e",
        "strength": "Strength",
        "layers": ["Music", "Ambience", "Effects"],
        "volume": "Music volume",
        "status": "in progress",
        "dnd": "Dungeons & Dragons 5e",
    },
    "zh": {
        "system": "克苏鲁的呼唤 第七版",
        "strength": "力量",
        "layers": ["音乐", "环境音", "音效"],
        "volume": "音乐音量",
        "status": "进行中",
        "dnd": "龙与地下城 第五版",
    },
}


@pytest.fixture(
    params=[("en", {"width": 1280, "height": 860}), ("zh", {"width": 390, "height": 844})],
    ids=["en-desktop", "zh-phone"],
)
def seat(request, browser, server, room):
    language, viewport = request.param
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    key = server.env.mint(room, "Kay", "keeper")
    page.goto(server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={key}")
    page.locator("#table-screen").wait_for(state="visible")
    yield page, language
    context.close()


def _say(page, line: str, answer: str) -> str:
    page.fill("#say", line)
    page.press("#say", "Enter")
    told = page.locator("#story li").filter(has_text=answer).last
    told.wait_for()
    return told.text_content()


def test_the_sheet_the_audio_desk_the_rules_and_the_quests_read_in_the_pages_language(seat):
    page, language = seat
    words = WORDS[language]
    _say(page, ".coc Mara", "Mara")
    sheet = page.locator("#character-body")
    sheet.locator(".attributes span").first.wait_for(state="attached")
    assert f"Mara ({words['system']})" in sheet.locator("p").first.text_content()
    shown = sheet.locator(".attributes span").all_text_contents()
    assert shown[0].startswith(f"{words['strength']} "), shown
    assert not any(
        text.split()[0] in ("STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU") for text in shown
    )

    desk = page.locator("#audio-layers label")
    assert [label.text_content() for label in desk.all()] == words["layers"]
    assert desk.first.locator("input").get_attribute("aria-label") == words["volume"]

    _say(page, ".quest add The dark lighthouse", "The dark lighthouse")
    listed = _say(page, ".quest", f"[{words['status']}]")
    assert f"The dark lighthouse [{words['status']}]" in listed
    quest = page.locator("#quests li").filter(has_text="The dark lighthouse")
    quest.wait_for(state="attached")
    assert quest.locator(".tag").first.text_content() == words["status"]

    page.click("#open-keeper")
    dialog = page.locator("#keeper-screens")
    dialog.locator("[data-screen=rules]").click()
    rules = dialog.locator("#keeper-body li")
    rules.filter(has_text=words["dnd"]).wait_for()
    assert words["system"] in rules.first.text_content() and "coc7" not in rules.first.text_content()
    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(page, SCREENS / f"names-rules-{language}-{page.viewport_size['width']}.png")
