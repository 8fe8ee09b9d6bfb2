"""The table's page runs only the site's own scripts (its Content-Security-Policy
allows no inline script), yet a pack's web-page panel, whose page is its own business,
still runs: it is shown in a sandboxed frame of the site's panel page, under a policy
of that page's own (docs/packs.md). Checked in Chromium: the panel's inline script
runs, and the table logs no policy violation."""

from __future__ import annotations

import urllib.request

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from packs import lwpack

pytestmark = BROWSER_TESTS

PAGE = (
    "<!doctype html><meta charset=utf-8><p id=out>waiting</p>"
    "<script>document.getElementById('out').textContent = 'the panel script ran'</script>"
)


def _web_pack(folder) -> bytes:
    (folder / "ui" / "note").mkdir(parents=True)
    (folder / "ui" / "note" / "index.html").write_text(PAGE)
    (folder / "ui" / "panels.yaml").write_text(
        "panels:\n  - id: note\n    title: Note\n    slot: sidebar\n"
        "    entry: ui/note/index.html\n    fallback: null\n"
    )
    (folder / "pack.yaml").write_text(
        "id: webby\nversion: 0.1.0\nname: Webby\ndescription: d\nlicense: MIT\n"
        "contents: {panels: [ui/panels.yaml]}\nassets: [ui/note/index.html]\n"
    )
    return lwpack.build(folder)


def test_a_web_panels_inline_script_runs_in_its_frame_and_the_table_allows_none(
    browser, server, room, tmp_path
):
    env = server.env
    base = server.ws_url.replace("ws://", "http://")
    with urllib.request.urlopen(base, timeout=10) as response:
        policy = response.headers["Content-Security-Policy"]
        assert (
            "script-src 'self'" in policy
            and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        )
        assert "camera=()" in response.headers["Permissions-Policy"]
    source = tmp_path / "webby.lwpack"
    source.write_bytes(_web_pack(tmp_path / "src"))
    installed = env.manage("pack", "install", str(source), "--yes")
    assert installed.returncode == 0, installed.stderr

    keeper = browser.new_page()
    keeper.goto(f"{base}#key={env.mint(room, 'Kay', 'keeper')}")
    keeper.locator("#table-screen").wait_for(state="visible")
    keeper.fill("#say", ".panels enable webby")
    keeper.press("#say", "Enter")
    keeper.locator("[data-panel='webby/note']").wait_for()
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    violations: list[str] = []
    page.on("console", lambda message: message.type == "error" and violations.append(message.text))
    page.goto(f"{base}#key={env.mint(room, 'Pip')}")
    panel = page.locator("[data-panel='webby/note']")
    panel.locator("button").click()
    out = page.frame_locator("[data-panel='webby/note'] iframe").locator("#out")
    out.filter(has_text="the panel script ran").wait_for(timeout=20_000)
    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(page, SCREENS / "table-web-panel.png")
    page.close()
    keeper.close()
    assert violations == []
