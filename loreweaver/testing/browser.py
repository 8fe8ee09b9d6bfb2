"""The browser the tests drive: Debian's Chromium (no browser can be downloaded here),
through Playwright. Its headless shell (`chromium-headless-shell`: the same Blink
without the full browser's windows and GPU process, what Playwright itself runs
headless) when installed, at about half the full browser's CPU per page (the browser
tests took 281 CPU-seconds of Chromium with the full browser, 134 with the shell);
else the full `chromium`, headless. Tests of browser pages skip where neither is
installed, and run on the embedded profile only (a page is a client like any other,
and the server's own tests cover both profiles); in CI a missing Chromium fails them
instead. Screenshots, for a person to look at, go to `build/screens/` when asked for
(`make screens`, or `TRPG_TEST_SCREENS=1`): a run would take some 280, about a sixth
of a second of the browser's CPU each, that nobody looks at."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from loreweaver.testing.servers import hosted_profile
from loreweaver.testing.tools import needs

CHROMIUM = next(
    filter(None, map(shutil.which, ("chromium-headless-shell", "chromium", "chromium-browser"))), None
)
SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens"

# The marks of a module of browser tests.
BROWSER_TESTS = [
    needs("chromium", "Debian's chromium drives these pages (.ci/run installs it)"),
    pytest.mark.skipif(hosted_profile(), reason="browser pages are tested on the embedded profile"),
]

SCREENS_WANTED = bool(os.environ.get("TRPG_TEST_SCREENS"))

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
TIMEOUT = 20_000


def seated(browser, server, key: str, language: str = "en", viewport: dict | None = None, **options):
    """A page of a fresh browser context joined at the table with `key`, its page in
    `language` (`options` go to the context: `has_touch`, `is_mobile` ...). Close its
    `context` when done. Errors the page throws are kept in its `errors` list."""
    context = browser.new_context(viewport=viewport or DESKTOP, **options)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{server.ws_url.replace('ws://', 'http://')}#lang={language}&key={key}")
    page.locator("#table-screen").wait_for(state="visible")
    return page


def snap(page, path: Path, full_page: bool = False) -> None:
    """A screenshot of `page` (or of one element, a locator) at `path`, when
    screenshots are asked for."""
    if not SCREENS_WANTED:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"full_page": True} if full_page else {}
    page.screenshot(path=str(path), **options)


def shoot(page, folder: Path, screen: str, language: str) -> None:
    """A screenshot of `page` as `<screen>-<language>-<width>.png` in `folder`, when
    screenshots are asked for."""
    snap(page, folder / f"{screen}-{language}-{page.viewport_size['width']}.png")


def console_login(browser, server, operator: tuple[str, str], viewport: dict, locale: str = "en-US"):
    """A page of the operator console, logged in as `operator`, at `viewport`'s size and
    asking for `locale` (the console follows the browser's language); the page and the
    server's HTTP base."""
    page = browser.new_context(viewport=viewport, locale=locale).new_page()
    page.set_default_timeout(20_000)
    base = server.ws_url.replace("ws://", "http://").rstrip("/")
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", operator[0])
    page.fill("#id_password", operator[1])
    page.click("input[type=submit]")
    page.locator("#user-tools").wait_for()
    return page, base


# What sticks out past the right edge of the window: the outermost such elements, to
# name in a failure (a page wider than the window scrolls sideways on a phone).
OVERFLOW_JS = """() => {
  const width = window.innerWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1 && !out.some(o => o.contains(el))) out.push(el);
  }
  return {scroll: document.documentElement.scrollWidth, width,
          culprits: out.slice(0, 5).map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
            + (typeof el.className === 'string' ? '.' + el.className.replaceAll(' ', '.') : '')
            + ' ' + Math.round(el.getBoundingClientRect().right))};
}"""


def horizontal_overflow(page) -> str:
    """ "" when the page fits its window's width, else how wide it is and what sticks out."""
    seen = page.evaluate(OVERFLOW_JS)
    if seen["scroll"] <= seen["width"]:
        return ""
    return f"{seen['scroll']} px wide in {seen['width']}: {', '.join(seen['culprits'])}"


_BOXES = """(selectors) => selectors.map((selector) =>
    [...document.querySelectorAll(selector)].map((element) => {
        const r = element.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    }))"""


def boxes(page, *selectors: str) -> list[list[dict]]:
    """The boxes of every element each selector finds, all read in one look: the page
    may still grow above them (the room's first frames arriving), which moves them
    together, where boxes read one at a time could each see a different layout."""
    return page.evaluate(_BOXES, list(selectors))
