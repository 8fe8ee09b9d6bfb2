"""The keeper screens list what they act on (docs/decisions.md, "The browser table"):
the room's backups, to restore or download one without typing a file name; the
installed packs, to turn their panels on with a click; and the model page names the
offline Keeper when no provider is chosen, offers its models, and saves one. In
Chromium, desktop and phone, en and zh."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from loreweaver.testing.backups import backup_document
from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS


WORDS = {
    "en": {"none": "none: the offline Keeper", "empty": "No backup", "on": "on", "turn_on": "Turn on"},
    "zh": {"none": "无：离线守秘人", "empty": "还没有备份", "on": "已开启", "turn_on": "开启"},
}


@pytest.fixture(
    params=[("en", {"width": 1280, "height": 860}), ("zh", {"width": 390, "height": 844})],
    ids=["en-desktop", "zh-phone"],
)
def seat(request, browser, server, room):
    language, viewport = request.param
    context = browser.new_context(viewport=viewport, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    key = server.env.mint(room, "Kay", "keeper")
    page.goto(server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={key}")
    page.locator("#table-screen").wait_for(state="visible")
    page.click("#open-keeper")
    yield page, language
    context.close()


def _shoot(page, screen: str, language: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    snap(page, SCREENS / f"keeper-list-{screen}-{language}-{width}.png")


def test_backups_are_listed_to_restore_or_download(seat, room, tmp_path):
    page, language = seat
    words = WORDS[language]
    dialog = page.locator("#keeper-screens")
    dialog.locator("[data-screen=backups]").click()
    dialog.locator(".backups li", has_text=words["empty"]).wait_for()
    dialog.locator("#keeper-body > button").click()  # back up the room now
    entry = dialog.locator(".backups li").filter(has_text=".zip")
    entry.wait_for()
    name = entry.locator(".name").inner_text()
    _shoot(page, "backups", language)

    with page.expect_download() as download:
        entry.locator("button").nth(1).click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == name and backup_document(saved)["room"] == room, "one archive, the document in it"

    asked = []
    page.once("dialog", lambda question: (asked.append(question.message), question.accept()))
    entry.locator("button").first.click()  # restore
    page.locator("#keeper-status").filter(has_text=name).wait_for()
    assert asked and name in asked[0], "the keeper is asked before the room is replaced"


def test_packs_are_listed_to_turn_their_panels_on(seat):
    page, language = seat
    words = WORDS[language]
    dialog = page.locator("#keeper-screens")
    dialog.locator("[data-screen=panels]").click()
    pack = dialog.locator(".packs li").filter(has_text="harbour-clues")
    pack.wait_for()
    pack.locator("button", has_text=words["turn_on"]).click()
    pack.locator("strong", has_text=words["on"]).wait_for()
    _shoot(page, "panels", language)


def test_the_model_page_names_the_offline_keeper(seat):
    page, language = seat
    dialog = page.locator("#keeper-screens")
    dialog.locator("[data-screen=model]").click()
    chosen = dialog.locator("select").first
    chosen.wait_for()
    assert chosen.evaluate("select => select.selectedOptions[0].textContent") == WORDS[language]["none"]
    offered = dialog.locator("#keeper-models option")
    offered.nth(1).wait_for(state="attached")
    assert [offered.nth(n).get_attribute("value") for n in range(2)] == ["sample-keeper", "sample-adventure"]
    _shoot(page, "model", language)
    chosen.select_option("deepseek")  # no key saved: its endpoint is not asked, nothing offered
    page.wait_for_function("() => document.querySelectorAll('#keeper-models option').length === 0")
    chosen.select_option("offline")
    offered.nth(1).wait_for(state="attached")
    dialog.locator("form.model input").first.fill("sample-adventure")
    dialog.locator("form.model button[type=submit]").click()
    dialog.locator("[data-screen=invites]").click()
    dialog.locator("[data-screen=model]").click()
    saved = (
        "() => document.querySelector('form.model input')?.value === 'sample-adventure'"
        " && document.querySelector('form.model select').value === 'offline'"
    )
    try:
        page.wait_for_function(saved)
    except PlaywrightTimeout:
        shown = page.evaluate(
            "() => [document.querySelector('form.model select')?.value,"
            " document.querySelector('form.model input')?.value,"
            " document.getElementById('keeper-status')?.textContent]"
        )
        raise AssertionError(f"the model page shows provider, model, status {shown}") from None


# What each keeper screen shows once its list has arrived, in each language.
SCREEN_CONTENT = {
    # The role reads with its key (the row's first words), not after the Delete button.
    "invites": ("#keeper-body .keys li > span:first-child", {"en": "· keeper ·", "zh": "· 守秘人 ·"}),
    "model": ("#keeper-models option[value=sample-keeper]", {"en": "", "zh": ""}),
    "backups": ("#keeper-body .backups li", {"en": "No backup", "zh": "还没有备份"}),
    "skills": ("#keeper-body .skills li", {"en": "Clue trail", "zh": "线索链"}),
    "rules": (
        "#keeper-body li",
        {
            "en": "Call of Cthulhu 7e (built in) · .coc makes a character",
            "zh": "克苏鲁的呼唤 第七版 (内置) · 用 .coc 创建角色",
        },
    ),
    "panels": ("#keeper-body .packs li", {"en": "Harbour clues", "zh": "港口线索"}),
    "audio": ("#keeper-body .hint", {"en": "No sounds in this room yet", "zh": "本房间还没有声音"}),
}


def test_every_keeper_screen_opens_on_its_own_content_in_the_keepers_language(seat):
    page, language = seat
    dialog = page.locator("#keeper-screens")
    for screen, (selector, text) in SCREEN_CONTENT.items():
        dialog.locator(f"[data-screen={screen}]").click()
        assert dialog.locator(f"[data-screen={screen}]").get_attribute("aria-selected") == "true"
        page.locator(selector).filter(has_text=text[language]).first.wait_for(state="attached")
        body = page.locator("#keeper-body").inner_text()
        assert "undefined" not in body and "[object" not in body, f"{screen} shows a script's leftovers"
        _shoot(page, f"screen-{screen}", language)
