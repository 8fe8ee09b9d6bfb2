"""A room's lore: facts of its world the Keeper is reminded of when they matter.

Entries come from `.lore add` / `.lore secret`, from the Keeper's `remember` tool when
it establishes a fact, from module files (`lore:`) and from SillyTavern lorebooks
(`.import <ref> world`). Each turn the Keeper's brief gets, within a budget of
characters: the constant entries, then the entries one of whose keywords appears in
the recent story (a selective entry also needs one of its secondary keywords there),
in their order, then the best full-text matches for the recent story
(`keeper/lore_search.py`: SQLite FTS5 embedded, Postgres full-text search hosted).
Keywords match whole words in any case for Latin script, anywhere for other scripts
(Chinese has no spaces between words). Entries for everyone go into the brief as lore
(the Keeper may tell them); keeper-only entries under KEEPER ONLY, so they reach only
the Keeper's reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from keeper import lore_search
from keeper.models import LoreEntry
from loreweaver.i18n import Refusal, _

MAX_ENTRIES = 500  # per room
PROMPT_BUDGET = 6000  # characters of lore in one brief
SCANNED_LINES = 6  # how far back the story is searched
SEARCHED = 8  # full-text matches a brief may take


class LoreError(Refusal):
    """Lore the server will not write as asked."""


def mentions(text: str, keyword: str) -> bool:
    """Whether `keyword` comes up in `text` (see the module docstring)."""
    keyword = keyword.strip()
    if not keyword:
        return False
    if keyword.isascii():
        return re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text, re.IGNORECASE) is not None
    return keyword.casefold() in text.casefold()


def _keyword_match(entry: LoreEntry, text: str) -> bool:
    if not any(mentions(text, keyword) for keyword in entry.keywords):
        return False
    return not entry.selective or not entry.secondary or any(mentions(text, k) for k in entry.secondary)


def relevant(room_id: int, lines: Iterable[str], *, keepers: bool = True) -> list[LoreEntry]:
    """The room's entries that matter for `lines`, most certain first: the constant
    ones, those whose keywords the lines mention, then the best full-text matches
    (players' queries: the lore for everyone only)."""
    text = "\n".join(lines)
    entries = LoreEntry.objects.filter(room_id=room_id).order_by("order", "id")
    if not keepers:
        entries = entries.filter(visibility=LoreEntry.Visibility.EVERYONE)
    by_id = {entry.id: entry for entry in entries}
    chosen = [entry for entry in by_id.values() if entry.constant]
    chosen += [entry for entry in by_id.values() if not entry.constant and _keyword_match(entry, text)]
    seen = {entry.id for entry in chosen}
    for found in lore_search.search(room_id, text, limit=SEARCHED + len(chosen)):
        if found in by_id and found not in seen:
            chosen.append(by_id[found])
            seen.add(found)
    return chosen


@dataclass(frozen=True)
class Reminder:
    """The lore a brief gets: for everyone, and for the Keeper alone."""

    public: list[LoreEntry]
    secret: list[LoreEntry]


def for_brief(room_id: int, recent: Iterable[str]) -> Reminder:
    """The entries that matter for the recent story lines, within the budget."""
    public, secret, spent = [], [], 0
    for entry in relevant(room_id, recent):
        spent += len(entry.title) + len(entry.content)
        if spent > PROMPT_BUDGET:
            break
        (public if entry.visibility == LoreEntry.Visibility.EVERYONE else secret).append(entry)
    return Reminder(public, secret)


def write(
    room_id: int, title: str, keywords: list[str], content: str, *, visibility: str, source: str
) -> LoreEntry:
    """Add an entry, or rewrite the room's entry of that title."""
    title, content = title.strip()[:200], content.strip()[:4000]
    if not title or not content:
        raise LoreError(_("Lore needs a title and a content."))
    existing = LoreEntry.objects.filter(room_id=room_id, title__iexact=title).first()
    if existing is None and LoreEntry.objects.filter(room_id=room_id).count() >= MAX_ENTRIES:
        raise LoreError(_("A room has at most {limit} lore entries."), limit=MAX_ENTRIES)
    entry = existing or LoreEntry(room_id=room_id, title=title)
    entry.keywords = [keyword[:80] for keyword in keywords[:16]]
    entry.content, entry.visibility, entry.source = content, visibility, source[:200]
    entry.save()
    return entry


def add_entries(room_id: int, entries: Iterable[dict], *, source: str, visibility: str) -> int:
    """Add lore entries (`title`, `keywords`, `secondary`, `content`, `constant`,
    `selective`, `order`) from `source`, replacing what that source brought before (an
    import of the same card twice does not double its lore). How many were added."""
    LoreEntry.objects.filter(room_id=room_id, source=source).delete()
    room_has = LoreEntry.objects.filter(room_id=room_id).count()
    rows = [
        LoreEntry(room_id=room_id, source=source, visibility=visibility, **entry)
        for entry in list(entries)[: max(0, MAX_ENTRIES - room_has)]
    ]
    LoreEntry.objects.bulk_create(rows)
    return len(rows)
