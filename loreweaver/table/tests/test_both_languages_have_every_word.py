"""The browser table's own words (static/table/i18n.js): every word the page uses
exists in English, and Chinese has exactly the same words with the same `{placeholders}`,
so switching the language never shows a key or drops a value."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from loreweaver.testing.tools import needs

TABLE = Path(__file__).resolve().parents[1]
STATIC = TABLE / "static" / "table"

pytestmark = needs("node", "node reads the page's module")

# Prints the WORDS table of i18n.js as JSON (the part before the code that needs a page).
READ_WORDS = """
const { readFileSync } = require("node:fs");
const source = readFileSync(process.argv[1], "utf8");
const table = source.slice(source.indexOf("const WORDS"), source.indexOf("let locale"));
console.log(JSON.stringify(new Function(table + "; return WORDS;")()));
"""


@pytest.fixture(scope="module")
def words() -> dict[str, dict[str, str]]:
    shown = subprocess.run(
        ["node", "-e", READ_WORDS, str(STATIC / "i18n.js")], capture_output=True, text=True, check=True
    )
    return json.loads(shown.stdout)


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_chinese_has_every_english_word_with_the_same_placeholders(words):
    assert sorted(words) == ["en", "zh"]
    assert sorted(words["zh"]) == sorted(words["en"]), "the same words in both languages"
    differing = [
        key for key in words["en"] if _placeholders(words["en"][key]) != _placeholders(words["zh"][key])
    ]
    assert not differing, f"placeholders differ: {differing}"
    assert all(text.strip() for table in words.values() for text in table.values()), "no empty word"


def test_every_word_the_page_uses_is_there(words):
    used = set()
    for script in STATIC.glob("*.js"):
        used |= set(re.findall(r"""\bt\(\s*["']([^"']+)["']""", script.read_text("utf-8")))
    page = (TABLE / "templates" / "table" / "index.html").read_text("utf-8")
    used |= set(re.findall(r'data-i18n(?:-placeholder)?="([^"]+)"', page))
    assert used, "the page's words were found"
    assert sorted(used - set(words["en"])) == []
