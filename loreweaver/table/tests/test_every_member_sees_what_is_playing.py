"""The audio desk in the browser (docs/decisions.md, "The browser table"): every member
sees a "now playing" strip naming each playing layer's track by its title (the
library's, as the keeper set it after the upload), the desk sends the track by its
title so the story shows no hash, and its stop buttons (Effects' too) are touch
targets apart from each other. Chromium at 1280 and 390 px, en and zh."""

from __future__ import annotations

import hashlib
import itertools
import os

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, DESKTOP, PHONE, SCREENS, boxes, seated, shoot

pytestmark = BROWSER_TESTS

SOUND = b"OggS" + os.urandom(3000)
TITLE = "Harbour at night"
WORDS = {
    "en": {
        "is": ": ",
        "bgm": "Music",
        "sfx": "Effects",
        "saved": "Saved.",
        "uploaded": "harbour.ogg is in the room.",
    },
    "zh": {
        "is": "：",
        "bgm": "音乐",
        "sfx": "音效",
        "saved": "已保存。",
        "uploaded": "harbour.ogg 已上传到房间。",
    },
}


@pytest.fixture(
    params=[(lang, view) for lang in ("en", "zh") for view in (DESKTOP, PHONE)],
    ids=["en-1280", "en-390", "zh-1280", "zh-390"],
)
def table(request, browser, server, room):
    language, viewport = request.param
    kay = seated(browser, server, server.env.mint(room, "Kay", "keeper"), language, viewport)
    pip = seated(browser, server, server.env.mint(room, "Pip"), language, viewport)
    late = []

    def join_late():
        late.append(seated(browser, server, server.env.mint(room, "Lee"), language, viewport))
        return late[-1]

    yield kay, pip, language, join_late
    for page in (kay, pip, *late):
        page.context.close()


def test_the_desk_plays_by_title_and_everyone_sees_what_plays(table):
    kay, pip, language, join_late = table
    words = WORDS[language]
    kay.set_input_files("#upload", files=[{"name": "harbour.ogg", "mimeType": "audio/ogg", "buffer": SOUND}])
    kay.locator("#upload-progress", has_text=words["uploaded"]).wait_for()
    kay.fill("#say", f'.audio set harbour.ogg "title={TITLE}"')
    kay.press("#say", "Enter")
    kay.locator("#story li", has_text=words["saved"]).wait_for()

    kay.click("#open-keeper")
    kay.click("#keeper-screens [data-screen=audio]")
    row = kay.locator("#keeper-body .desk li", has_text=TITLE)
    row.locator("button").first.click()  # music
    strip = pip.locator("#now-playing")
    strip.filter(has_text=f"{words['bgm']}{words['is']}{TITLE}").wait_for()
    kay.locator("#story li", has_text=f'.bgm play "{TITLE}" --loop').wait_for()
    digest = hashlib.sha256(SOUND).hexdigest()
    assert digest[:8] not in kay.locator("#story").inner_text(), "the story names the track, not its hash"
    row.locator("button").last.click()  # an effect
    strip.filter(has_text=f"{words['sfx']}{words['is']}{TITLE}").wait_for()

    lee = join_late()  # the music from the desk's state, by the title it was played by
    lee.locator("#now-playing").filter(has_text=f"{words['bgm']}{words['is']}{TITLE}").wait_for()

    stops = kay.locator("#keeper-body .stops button")
    assert stops.count() == 3 and words["sfx"] in stops.last.inner_text(), "Effects has a stop too"
    [stop_boxes] = boxes(kay, "#keeper-body .stops button")
    assert all(box["height"] >= 44 and box["width"] >= 44 for box in stop_boxes), stop_boxes
    for left, right in itertools.pairwise(stop_boxes):
        apart = (
            right["x"] - (left["x"] + left["width"])
            if abs(left["y"] - right["y"]) < 4
            else right["y"] - (left["y"] + left["height"])
        )
        assert apart >= 8, f"stop buttons touch: {stop_boxes}"
    shoot(kay, SCREENS, "audio-desk", language)
    shoot(pip, SCREENS, "now-playing", language)

    stops.last.click()
    strip.filter(has_text=words["bgm"]).wait_for()
    pip.wait_for_function(
        "sfx => !document.getElementById('now-playing').textContent.includes(sfx)", arg=words["sfx"]
    )
    stops.first.click()
    strip.wait_for(state="hidden")
    assert pip.errors == [] and kay.errors == []
