"""The browser table's panel template resolver (static/table/templates.js), run in
Chromium on the table's own page: every case of the shared conformance table
(packs/tests/fixtures/panel_template_vectors.json, license beside it) resolves to what
the table expects, as the server's `.panel` resolver does (docs/packs.md, "Panels in a
room")."""

from __future__ import annotations

import json
from pathlib import Path

from loreweaver.testing.browser import BROWSER_TESTS

pytestmark = BROWSER_TESTS

ROOT = Path(__file__).resolve().parents[3]
VECTORS = json.loads(
    (ROOT / "packs" / "tests" / "fixtures" / "panel_template_vectors.json").read_text("utf-8")
)

# Runs every case through the module the table itself loads, from the page's origin.
RUN = """async (cases) => {
  const app = document.querySelector('script[type="module"]').src;
  const { resolvePanelBlocks } = await import(new URL("templates.js", app).href);
  return cases.map(({ blocks, variables, locale }) =>
    JSON.parse(JSON.stringify(resolvePanelBlocks(blocks, variables, locale))));
}"""


def test_chromium_resolves_every_shared_case_to_what_the_table_expects(browser, server):
    page = browser.new_page()
    page.goto(server.ws_url.replace("ws://", "http://"))
    results = page.evaluate(RUN, VECTORS["cases"])
    page.close()
    wrong = [
        (case["id"], case["expect"], result)
        for case, result in zip(VECTORS["cases"], results, strict=True)
        if result != case["expect"]
    ]
    assert not wrong
    assert len(results) == len(VECTORS["cases"]) == 44
