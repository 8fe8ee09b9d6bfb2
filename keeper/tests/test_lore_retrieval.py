"""Lore retrieval (keeper/lore_search.py): on a labelled set of 200 entries of an
invented harbour town (fixtures/lore_set.json, about a tenth in Chinese) and 30 player
lines that mostly do not say the entry's keyword (fixtures/lore_questions.json), the
Keeper's brief (`lore.for_brief`, through `lore.relevant`) holds the expected entry for
at least 27 of them, and so do the keyword matches and the best search results cut to
eight entries. Search survives any text, sees only its own room and follows edits of
the lore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from keeper import lore, lore_search
from keeper.models import LoreEntry
from rooms.services import room_get_or_create

FIXTURES = Path(__file__).parent / "fixtures"
PICKED = 8  # entries the brief gets besides the constant ones
REQUIRED_HITS = 27


def _load(room_name: str) -> int:
    room_id = room_get_or_create(name=room_name).pk
    entries = json.loads((FIXTURES / "lore_set.json").read_text(encoding="utf-8"))
    LoreEntry.objects.bulk_create(LoreEntry(room_id=room_id, source="lore_set", **entry) for entry in entries)
    return room_id


def _keyword_match(entry: LoreEntry, text: str) -> bool:
    if not any(lore.mentions(text, keyword) for keyword in entry.keywords):
        return False
    return not entry.selective or not entry.secondary or any(lore.mentions(text, k) for k in entry.secondary)


def _top_picks(room_id: int, lines: list[str]) -> list[LoreEntry]:
    """A stricter pick than the brief's: the entries one of whose keywords comes up
    first (in their order), then the full-text matches, without repeats, at most PICKED
    in all, within the brief's budget (constant entries, in every brief anyway, aside)."""
    text = "\n".join(lines)
    entries = {entry.id: entry for entry in LoreEntry.objects.filter(room_id=room_id).order_by("order", "id")}
    ranked = [entry.id for entry in entries.values() if _keyword_match(entry, text)]
    ranked += lore_search.search(room_id, text, limit=PICKED)
    picked: list[LoreEntry] = []
    spent = 0
    for entry_id in dict.fromkeys(ranked):
        entry = entries[entry_id]
        if entry.constant:
            continue
        spent += len(entry.title) + len(entry.content)
        if len(picked) == PICKED or spent > lore.PROMPT_BUDGET:
            break
        picked.append(entry)
    return picked


def _in_the_brief(room_id: int, lines: list[str]) -> list[LoreEntry]:
    reminder = lore.for_brief(room_id, lines)
    return reminder.public + reminder.secret


def _hits(pick) -> None:
    room_id = _load("harbour town")
    questions = json.loads((FIXTURES / "lore_questions.json").read_text(encoding="utf-8"))
    assert len(questions) == 30 and LoreEntry.objects.filter(room_id=room_id).count() == 200
    misses = []
    for question in questions:
        titles = [entry.title for entry in pick(room_id, question["lines"])]
        if question["expected"] not in titles:
            misses.append(f"{question['lines']} -> wanted {question['expected']!r}, got {titles}")
    print(f"\n{len(questions) - len(misses)}/{len(questions)} found", *misses, sep="\n  miss: ")
    assert len(questions) - len(misses) >= REQUIRED_HITS, "\n".join(misses)


@pytest.mark.django_db
def test_the_brief_holds_the_expected_entry_for_most_player_lines():
    _hits(_in_the_brief)


@pytest.mark.django_db
def test_the_keyword_matches_and_the_best_search_results_hold_it_within_eight_entries():
    _hits(_top_picks)


@pytest.mark.django_db
def test_a_chinese_word_of_two_characters_is_found():
    room_id = _load("harbour town")
    found = [LoreEntry.objects.get(pk=pk).title for pk in lore_search.search(room_id, "灯塔")]
    assert found[0] == "塘鹅角灯塔"


HOSTILE = [
    "",
    "   \n\t ",
    "?!... ,,, ;;; ---",
    '"',
    "'",
    '"unbalanced quote',
    "AND",
    "OR NOT AND",
    "lighthouse AND NOT harbour",
    "NEAR(lighthouse keeper, 2)",
    "light*",
    "^lighthouse",
    "title:lighthouse",
    "{title keywords}: lighthouse",
    "-lighthouse +harbour",
    "lighthouse & !harbour | (keeper <-> light):*",
    "'; DROP TABLE keeper_loreentry; --",
    "%s %(room)s {0} ?",
    "back\\slash \\\\ \\",
    "nul\x00byte",
    "🙂🐙 emoji only 🌊",
    "ＡＮＤ ｌｉｇｈｔｈｏｕｓｅ",  # fullwidth
    "a" * 10_000,
    "lighthouse " * 1_000,
    ("灯塔" * 5_000),
    " ".join(f"word{n} ({n}) AND* ^{n}" for n in range(800)),
    "的了吗呢吧",
    "x",
]


@pytest.mark.django_db
@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_search_survives_any_text(text):
    room_id = _load("harbour town")
    # Only letters and digits reach the database, whatever the text holds.
    assert all(term.isalnum() for term, _ in lore_search.terms(text))
    found = lore_search.search(room_id, text)
    assert isinstance(found, list) and len(found) <= 8
    assert set(found) <= set(LoreEntry.objects.filter(room_id=room_id).values_list("id", flat=True))


@pytest.mark.django_db
def test_an_empty_room_finds_nothing():
    _load("harbour town")
    empty = room_get_or_create(name="empty").pk
    assert lore_search.search(empty, "Who keeps the lighthouse? 灯塔") == []
    assert lore_search.search(empty, "") == []


@pytest.mark.django_db
def test_a_room_never_sees_another_rooms_entries():
    mine = _load("mine")
    theirs = room_get_or_create(name="theirs").pk
    LoreEntry.objects.create(room_id=theirs, title="Lighthouse", keywords=["灯塔"], content="The lighthouse.")
    ours = set(LoreEntry.objects.filter(room_id=mine).values_list("id", flat=True))
    found = lore_search.search(mine, "the lighthouse keeper 灯塔", limit=50)
    assert found and set(found) <= ours
    other = lore_search.search(theirs, "the lighthouse keeper 灯塔", limit=50)
    assert other == list(LoreEntry.objects.filter(room_id=theirs).values_list("id", flat=True))


@pytest.mark.django_db
def test_the_index_follows_new_changed_and_deleted_entries():
    room_id = room_get_or_create(name="edits").pk
    entry = LoreEntry.objects.create(
        room_id=room_id, title="Cellar", keywords=["trapdoor", "暗门"], content="Barrels of rye."
    )
    assert lore_search.search(room_id, "a hidden trapdoor") == [entry.id]
    assert lore_search.search(room_id, "那里有暗门") == [entry.id]
    entry.content = "Crates of Canadian whisky."
    entry.keywords = ["hatch"]
    entry.save()
    assert lore_search.search(room_id, "barrels of rye") == []
    assert lore_search.search(room_id, "暗门") == []
    assert lore_search.search(room_id, "whisky crates") == [entry.id]
    assert lore_search.search(room_id, "the hatch") == [entry.id]
    entry.delete()
    assert lore_search.search(room_id, "whisky crates") == []


@pytest.mark.django_db
def test_a_word_in_the_title_or_keywords_outranks_one_in_the_content():
    room_id = room_get_or_create(name="ranks").pk
    create = LoreEntry.objects.create
    body = create(room_id=room_id, title="Harbour", content="A gull sits on the pier.")
    head = create(room_id=room_id, title="Gulls", content="Loud birds.", order=500)
    tagged = create(room_id=room_id, title="Birds", keywords=["gull"], content="Loud.", order=600)
    assert lore_search.search(room_id, "gulls") == [head.id, tagged.id, body.id]
