"""Tier-2 panels: a small static web page of the pack, its files beside it, and
fallback blocks (or null) for text-first clients; in the manifest the page and its
files are hashes, paths relative to the page's folder (docs/packs.md)."""

from __future__ import annotations

import hashlib

import pytest

from packs import lwpack
from packs.panels import PanelError, manifest_for

PANELS = """
panels:
  - id: survey
    title: {en: Survey, zh: 测绘}
    slot: modal
    entry: ui/survey/index.html
    assets: [ui/survey/index.html, ui/survey/app.js]
    fallback: [{kind: text, text: Open the survey in a rich client.}]
  - id: map
    title: Map
    slot: tray
    audience: keeper
    entry: ui/map/index.html
    fallback: null
"""


def _source(folder, panels: str = PANELS):
    (folder / "ui" / "survey").mkdir(parents=True)
    (folder / "ui" / "map").mkdir()
    (folder / "ui" / "survey" / "index.html").write_text("<!doctype html><script src=app.js></script>")
    (folder / "ui" / "survey" / "app.js").write_text("document.body.textContent = 'survey'")
    (folder / "ui" / "map" / "index.html").write_text("<!doctype html><p>map</p>")
    (folder / "ui" / "panels.yaml").write_text(panels)
    (folder / "pack.yaml").write_text(
        "id: web\nversion: 0.1.0\nname: Web\ndescription: d\nlicense: MIT\n"
        "contents: {panels: [ui/panels.yaml]}\n"
        "assets: [ui/survey/index.html, ui/survey/app.js, ui/map/index.html]\n"
    )
    return folder


def test_a_web_page_panel_is_its_hashes_and_its_fallback(tmp_path):
    pack = lwpack.open_pack(lwpack.build(_source(tmp_path)))
    survey, web_map = pack.panels
    digest = hashlib.sha256((tmp_path / "ui/survey/app.js").read_bytes()).hexdigest()
    assert survey["tier"] == 2 and survey["entry"]["size"] == len(
        (tmp_path / "ui/survey/index.html").read_bytes()
    )
    assert [(a["path"], a["hash"], a["mime"]) for a in survey["assets"]][1] == (
        "app.js",
        digest,
        "text/javascript",
    )
    assert survey["fallback"] == [{"kind": "text", "text": "Open the survey in a rich client."}]
    assert web_map["fallback"] is None
    assert pack.trust["web_panels"] == 2
    assert [panel["id"] for panel in manifest_for(pack.panels, pack_id="web", is_keeper=False)] == [
        "web/survey"
    ]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda text: text.replace("fallback: null\n", ""), "fallback"),
        (lambda text: text.replace("ui/survey/app.js]", "ui/map/index.html]"), "beside the entry"),
        (lambda text: text.replace("entry: ui/map/index.html", "entry: ui/map/index.txt"), "html"),
    ],
)
def test_a_web_page_panel_that_breaks_the_rules_is_refused(tmp_path, change, problem):
    with pytest.raises((PanelError, lwpack.PackError), match=problem):
        lwpack.build(_source(tmp_path, change(PANELS)))
