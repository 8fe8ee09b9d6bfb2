"""A player reading the end of the story keeps its last line in sight when the "now
playing" strip appears above it (docs/decisions.md, "The browser table"): the story
gives the strip its room from the top, never by hiding its last line under the input
box. Chromium at 390 px, where the story fills the screen first."""

from __future__ import annotations

import os

from loreweaver.testing.browser import BROWSER_TESTS, PHONE, SCREENS, seated, shoot

pytestmark = BROWSER_TESTS

SOUND = b"OggS" + os.urandom(3000)

_LAST_LINE_IN_SIGHT = """() => {
    const story = document.getElementById("story");
    const last = story.lastElementChild.getBoundingClientRect();
    return last.bottom <= story.getBoundingClientRect().bottom + 1;
}"""
_OVERFLOWS = """() => {
    const story = document.getElementById("story");
    return story.scrollHeight > story.clientHeight + 120;
}"""


# The strip grows again right after the story moved to make room for it, before that
# move's scroll event is dispatched (a second row of the strip, say): the event then
# reads a story whose end is out of sight, though no reader scrolled.
_STRIP_GROWS_TWICE = """() => new Promise((done) => {
    const strip = document.getElementById("now-playing");
    let grown = 0;
    new ResizeObserver(() => {
        if (grown === 1) { grown = 2; strip.style.minHeight = "9rem"; }
    }).observe(document.getElementById("story"));
    strip.hidden = false;
    strip.textContent = "♪";
    strip.style.minHeight = "4rem";
    grown = 1;
    setTimeout(done, 500);
})"""


def _fill_the_story(pip) -> None:
    for n in range(30):
        if pip.evaluate(_OVERFLOWS):
            break
        pip.fill("#say", f".r 1d6+{n}")
        pip.press("#say", "Enter")
        pip.locator("#story li", has_text=f"1d6+{n}").last.wait_for()
    assert pip.evaluate(_OVERFLOWS), "the story fills the phone's screen"
    assert pip.evaluate(_LAST_LINE_IN_SIGHT)


def test_the_story_keeps_its_last_line_in_sight_when_music_starts(browser, server, room):
    kay = seated(browser, server, server.env.mint(room, "Kay", "keeper"), "en")
    pip = seated(browser, server, server.env.mint(room, "Pip"), "en", PHONE)
    _fill_the_story(pip)

    kay.set_input_files("#upload", files=[{"name": "harbour.ogg", "mimeType": "audio/ogg", "buffer": SOUND}])
    kay.locator("#upload-progress", has_text="harbour.ogg is in the room.").wait_for()
    kay.fill("#say", '.bgm play "harbour.ogg" --loop')
    kay.press("#say", "Enter")
    pip.locator("#now-playing", has_text="harbour.ogg").wait_for()
    pip.wait_for_function(_LAST_LINE_IN_SIGHT, timeout=5000)
    shoot(pip, SCREENS, "music-starts", "en")
    assert pip.errors == [] and kay.errors == []
    for page in (kay, pip):
        page.context.close()


def test_the_story_keeps_its_last_line_when_the_strip_grows_twice_in_a_row(browser, server, room):
    pip = seated(browser, server, server.env.mint(room, "Pip"), "en", PHONE)
    _fill_the_story(pip)
    pip.evaluate(_STRIP_GROWS_TWICE)
    pip.wait_for_function(_LAST_LINE_IN_SIGHT, timeout=5000)
    assert pip.errors == []
    pip.context.close()
