"""A room's lore: facts of its world the Keeper is reminded of when they matter.

Each turn the Keeper's brief gets the constant entries, then the entries one of whose
keywords appears in the recent story (a selective entry also needs one of its
secondary keywords there), in their order, until a budget of characters is spent.
Keywords match whole words in any case for Latin script, anywhere for other scripts
(Chinese has no spaces between words). Entries for everyone go into the brief as
lore; keeper-only entries under KEEPER ONLY, so they reach only the Keeper's reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from keeper.models import LoreEntry

MAX_ENTRIES = 500  # per room
PROMPT_BUDGET = 6000  # characters of lore in one brief
SCANNED_LINES = 6  # how far back the story is searched for keywords


def mentions(text: str, keyword: str) -> bool:
    """Whether `keyword` comes up in `text` (see the module docstring)."""
    keyword = keyword.strip()
    if not keyword:
        return False
    if keyword.isascii():
        return re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text, re.IGNORECASE) is not None
    return keyword.casefold() in text.casefold()


def _matches(entry: LoreEntry, text: str) -> bool:
    if entry.constant:
        return True
    if not any(mentions(text, keyword) for keyword in entry.keywords):
        return False
    return not entry.selective or not entry.secondary or any(mentions(text, k) for k in entry.secondary)


@dataclass(frozen=True)
class Reminder:
    """The lore a brief gets: for everyone, and for the Keeper alone."""

    public: list[LoreEntry]
    secret: list[LoreEntry]


def for_brief(room_id: int, recent: Iterable[str]) -> Reminder:
    """The entries that matter for the recent story lines, within the budget."""
    text = "\n".join(recent)
    public, secret, spent = [], [], 0
    for entry in LoreEntry.objects.filter(room_id=room_id).order_by("order", "id"):
        if not _matches(entry, text):
            continue
        spent += len(entry.content)
        if spent > PROMPT_BUDGET:
            break
        (public if entry.visibility == LoreEntry.Visibility.EVERYONE else secret).append(entry)
    return Reminder(public, secret)


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
