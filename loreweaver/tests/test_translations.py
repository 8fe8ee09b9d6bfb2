"""Every text the server says exists in English and Chinese: each text marked in the
code has a Chinese translation in the catalog, and the compiled catalog the server
loads says the same as the one people edit (docs/architecture.md, "Texts")."""

from __future__ import annotations

import ast
import gettext
import itertools
import re
from pathlib import Path

import pytest
from django.utils import translation

from base.i18n import say

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"


def _unquote(lines: list[str]) -> str:
    return "".join(ast.literal_eval(line.strip()) for line in lines)


def _entries(po: str) -> dict[str, tuple[str, bool, str]]:
    """msgid -> (msgstr, fuzzy, msgid_plural or "") of a .po file (a plural entry's
    msgstr is its first form: Chinese has one)."""
    found = {}
    for block in po.split("\n\n"):
        lines = block.strip().splitlines()
        fuzzy = any(line.startswith("#,") and "fuzzy" in line for line in lines)
        body = [line for line in lines if not line.startswith("#")]
        if not body or not body[0].startswith("msgid "):
            continue
        # Each keyword starts a part; a part's quoted lines follow it.
        starts = [i for i, line in enumerate(body) if not line.startswith('"')] + [len(body)]
        parts = {
            body[i].split(" ", 1)[0]: [body[i].split(" ", 1)[1], *body[i + 1 : end]]
            for i, end in itertools.pairwise(starts)
        }
        msgid = _unquote(parts["msgid"])
        plural = _unquote(parts.get("msgid_plural", []))
        msgstr = _unquote(parts.get("msgstr") or parts["msgstr[0]"])
        if msgid:
            found[msgid] = (msgstr, fuzzy, plural)
    return found


def _marked_texts() -> set[str]:
    """Every text marked with `_` in the server's code: the string given to each `_()`."""
    texts = set()
    for package in ("base", "loreweaver", "rooms", "media_store", "packs", "keeper"):
        for path in (ROOT / package).rglob("*.py"):
            if {"tests", "testing", "migrations"} & set(path.relative_to(ROOT).parts):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
                    (argument,) = node.args
                    assert isinstance(argument, ast.Constant), f"{path}:{node.lineno}: mark a literal text"
                    texts.add(argument.value)
    return texts


def test_every_marked_text_has_a_chinese_translation():
    catalog = _entries((CATALOG / "django.po").read_text(encoding="utf-8"))
    marked = _marked_texts()
    assert len(marked) > 200
    missing = sorted(text for text in marked if not catalog.get(text, ("", False, ""))[0])
    fuzzy = sorted(text for text in marked if catalog.get(text, ("", False, ""))[1])
    assert not missing, "texts without Chinese (run `make messages` and translate):\n" + "\n".join(missing)
    assert not fuzzy, "translations marked fuzzy:\n" + "\n".join(fuzzy)


def test_the_compiled_catalog_matches_the_edited_one():
    catalog = _entries((CATALOG / "django.po").read_text(encoding="utf-8"))
    with (CATALOG / "django.mo").open("rb") as compiled:
        loaded = gettext.GNUTranslations(compiled)
    stale = [
        text
        for text, (chinese, _fuzzy, plural) in catalog.items()
        if (loaded.ngettext(text, plural, 1) if plural else loaded.gettext(text)) != chinese
    ]
    assert not stale, "django.mo is older than django.po: run `make messages`"


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("en", "Only the keeper can do that."), ("zh", "只有守秘人可以这样做。")],
)
def test_a_text_is_said_in_the_viewers_language(locale, expected):
    assert say(locale, "Only the keeper can do that.") == expected
    assert translation.get_language() in ("en-us", "en", None), "saying something changes no one's language"


def test_values_are_filled_in_after_translation():
    said = say(
        "zh",
        "That message is too long: the limit is {limit} characters. Shorten it and send again.",
        limit=4000,
    )
    assert "4000" in said and re.search("[\u4e00-\u9fff]", said)
