"""A room's lore: facts of its world the Keeper is reminded of when they matter.

Entries come from `.lore add` / `.lore secret`, from the Keeper's `remember` tool when
it establishes a fact, from module files (`lore:`) and from SillyTavern lorebooks
(`.import <ref> world`). Each turn the Keeper's brief gets, within a budget of
characters: the constant entries, then the entries one of whose keywords appears in
the recent story (a selective entry also needs one of its secondary keywords there),
in their order, then the best full-text matches for the recent story
(`keeper/lore_search.py`: SQLite FTS5 embedded, Postgres full-text search hosted),
then, when an embeddings model is configured (`TRPG_LLM__EMBEDDING_MODEL`), the
entries closest in meaning to it (`keeper/kp/memory.py` keeps the vectors).
Keywords match whole words in any case for Latin script, anywhere for other scripts
(Chinese has no spaces between words). Entries for everyone go into the brief as lore
(the Keeper may tell them); keeper-only entries under KEEPER ONLY, so they reach only
the Keeper's reasoning.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from base.i18n import Refusal, _
from keeper import chronicle, lore_search
from keeper.models import LoreEntry

MAX_ENTRIES = 500  # per room
PROMPT_BUDGET = 6000  # characters of lore in one brief
SCANNED_LINES = 6  # how far back the story is searched
SEARCHED = 8  # full-text matches a brief may take
BY_MEANING = 4  # entries close in meaning a brief may take (when embeddings are on)
CLOSE_ENOUGH = 0.25  # cosine similarity an entry needs for that
EMBEDDED_PER_TURN = 32  # entries without a vector that get one each turn


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


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(x * x for x in b))
    return sum(map(operator.mul, a, b)) / norms if norms else 0.0


def closest(entries: Iterable[LoreEntry], vector: Sequence[float], count: int) -> list[LoreEntry]:
    """Of `entries`, the `count` closest in meaning to `vector` and close enough."""
    scored = [
        (_cosine(entry.embedding, vector), entry.id, entry)
        for entry in entries
        if entry.embedding and len(entry.embedding) == len(vector)
    ]
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [entry for score, _id, entry in scored[:count] if score >= CLOSE_ENOUGH]


def relevant(
    room_id: int, lines: Iterable[str], *, keepers: bool = True, vector: Sequence[float] | None = None
) -> list[LoreEntry]:
    """The room's entries that matter for `lines`, most certain first: the constant
    ones, those whose keywords the lines mention, the best full-text matches, then
    those closest in meaning to `vector` (the lines' embedding, if any). Players'
    queries read the lore for everyone only."""
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
    if vector:
        rest = [entry for entry in by_id.values() if entry.id not in seen]
        chosen += closest(rest, vector, BY_MEANING)
    return chosen


@dataclass(frozen=True)
class Reminder:
    """The lore a brief gets: for everyone, and for the Keeper alone."""

    public: list[LoreEntry]
    secret: list[LoreEntry]


def for_brief(room_id: int, recent: Iterable[str], vector: Sequence[float] | None = None) -> Reminder:
    """The entries that matter for the recent story lines, within the budget."""
    public, secret, spent = [], [], 0
    for entry in relevant(room_id, recent, vector=vector):
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
    entry.embedding, entry.embedded_with = None, ""  # a new text needs a new vector
    entry.save()
    return entry


def add_entries(room_id: int, entries: Iterable[dict], *, source: str, visibility: str) -> int:
    """Add lore entries (`title`, `keywords`, `secondary`, `content`, `constant`,
    `selective`, `order`, and a `visibility` of its own, else `visibility`) from
    `source`, replacing what that source brought before (an import of the same card
    twice does not double its lore). How many were added."""
    LoreEntry.objects.filter(room_id=room_id, source=source).delete()
    room_has = LoreEntry.objects.filter(room_id=room_id).count()
    rows = [
        LoreEntry(room_id=room_id, source=source, **{"visibility": visibility, **entry})
        for entry in list(entries)[: max(0, MAX_ENTRIES - room_has)]
    ]
    LoreEntry.objects.bulk_create(rows)
    return len(rows)


def recent_text(room_id: int) -> str:
    """The recent story the brief's lore is chosen for (what `for_brief` is given)."""
    summary = chronicle.summary_of(room_id)
    lines = chronicle.unfolded_lines(room_id, summary.through_line_id, SCANNED_LINES)
    return "\n".join(line.text for line in lines)


def needing_vectors(room_id: int, model: str) -> list[LoreEntry]:
    """Entries of the room without a vector from `model` (a few per turn)."""
    return list(
        LoreEntry.objects.filter(room_id=room_id)
        .exclude(embedded_with=model)
        .order_by("id")[:EMBEDDED_PER_TURN]
    )


def keep_vectors(entries: list[LoreEntry], vectors: list[list[float]], model: str) -> None:
    """Store each entry's vector, unless its text changed meanwhile."""
    for entry, vector in zip(entries, vectors, strict=True):
        LoreEntry.objects.filter(pk=entry.pk, content=entry.content, title=entry.title).update(
            embedding=vector, embedded_with=model
        )
