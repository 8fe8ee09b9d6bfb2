"""Full-text search over a room's lore: the entries whose title, keywords or content
share words with a few recent story lines, best first (`search`).

How text becomes terms, the same on both databases:
- Words of space-separated scripts are matched stemmed, in any case, by English rules
  ("whistles" finds "whistle", "drowned" finds "drowning"): FTS5's porter tokenizer on
  SQLite, the 'english' configuration on Postgres (its Snowball stemmer: nearly the
  same stems; it also drops English stop words). Other languages in Latin script are
  matched as whole words, the stemmer seldom touching them.
- Chinese and Japanese are written without spaces and neither FTS5's unicode61
  tokenizer nor Postgres's parser splits them (a run of ideographs is one "word").
  The trigram tokenizer does not help either: it cannot match fewer than three
  characters, and most Chinese words are two. So a run of CJK characters in the query
  becomes its overlapping pairs of characters (灯塔的光 → 灯塔, 塔的, 的光, minus pairs
  with a particle such as 的), each matched as a substring. On Postgres every CJK
  character is indexed as a word of its own and a pair is the phrase '灯' <-> '塔';
  on SQLite the pairs are looked for with instr() in the room's entries only. (Other
  scripts without spaces, such as Thai, are not split: whole runs only.)
- The query is never handed to either database as query syntax: it is cut into runs
  of letters and digits (quotes, operators, `*`, `^`, `:` and the like are dropped),
  English stop words and chat filler go, and each remaining term is matched on its own
  (an FTS5 string in double quotes, or plainto_tsquery/phraseto_tsquery on a bound
  parameter). At most MAX_TERMS terms are kept, the latest in the text first.

Ranking, the same on both databases: one query finds, for each entry of the room that
matches any term, which terms it matches in its title or keywords and which in its
content. An entry scores, for each term it matches, 2 if the term is in its title or
keywords plus 1 if it is in its content, times ln(1 + N / n) squared, where N is the
number of entries in the room and n the number of them matching the term: rare words
weigh much more (squared as in Lucene's classic TF-IDF, where the idf counts twice; on
the labelled set in keeper/tests/fixtures that ranks the expected entry higher than a
plain idf, so a common word in a title no longer beats a rare one in the content).
Ties go to the lower `order`, then the older entry.

The index (migration keeper/0012_lore_search): on SQLite the FTS5 table
`keeper_lore_fts` ('porter unicode61' tokenizer, rowid = the entry's id), filled by
triggers on `keeper_loreentry`; on Postgres a GIN index on
`keeper_lore_document(title, keywords, content)`.

NOTE: on SQLite a migration that rebuilds `keeper_loreentry` (AddField, AlterField,
RemoveField... Django copies the rows into a new table and drops the old one) drops the
triggers with it, and the index silently stops following edits. Such a migration must
end with `RunPython(restore_after_rebuild, RunPython.noop)` or call
`create_sqlite_triggers(schema_editor)` from keeper/migrations/0012_lore_search.py
(which also copies every entry into the index afresh), as 0011 does for the
state-stamp triggers.
"""

from __future__ import annotations

import math
import re

from django.db import connection

MAX_TERMS = 32  # per query; the latest in the text first
MAX_TEXT = 20_000  # characters of query text looked at (the end of it)
MAX_TERM_LENGTH = 40  # longer "words" are noise (or an attack) and are dropped
HEAD_WEIGHT = 2  # a term in the title or keywords
BODY_WEIGHT = 1  # a term in the content

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and ideographs
_RUN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")

_STOP_WORDS = """
    a about above after again against all also am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don down
    during each even ever every few for from further get gets getting go goes going gone got had
    hadn has hasn have haven having he her here hers herself him himself his how however i if in
    into is isn it its itself just let lets ll me might more most much must mustn my myself no nor
    not now of off on once one only or other ought our ours ourselves out over own quite rather re
    really same say says said shall she should shouldn so some still such than that the their
    theirs them themselves then there these they this those through to too under until up upon
    us ve very was wasn we were weren what when where which while who whom whose why will with
    won would wouldn yes yet you your yours yourself yourselves
    ok okay yeah yep nope hey hi hello oh uh um hmm well maybe like want wants need needs ask asks
    asked tell tells told think thinks know knows look looks see sees try tries gonna wanna
    something anything everything someone anyone everyone somebody anybody thing things way
"""
STOP_WORDS = frozenset(_STOP_WORDS.split())
# Chinese: pairs holding a particle are mostly across word boundaries; a few pronouns.
_CJK_PARTICLES = frozenset("的了吗呢吧啊呀嘛哦么着")
_CJK_STOP_TEXT = (
    "我们 你们 他们 她们 它们 咱们 这个 那个 一个 这些 那些 这里 那里 哪里 这样 那样 怎样 "
    "没有 可以 不是 就是 还是 已经 因为 所以 但是 如果 知道 觉得 现在 时候 一下 一点 有人 有没"
)
_CJK_STOP_PAIRS = frozenset(_CJK_STOP_TEXT.split())


def terms(text: str) -> list[tuple[str, bool]]:
    """The search terms in `text`: (term, is_cjk), the latest first, at most MAX_TERMS."""
    found: list[tuple[str, bool]] = []
    seen: set[str] = set()
    for run in reversed(_RUN.findall((text or "")[-MAX_TEXT:])):
        if _IS_CJK.match(run):
            if len(run) == 1:
                candidates = [run]
            else:
                candidates = [run[i : i + 2] for i in range(len(run) - 2, -1, -1)]
                candidates = [
                    pair
                    for pair in candidates
                    if pair not in _CJK_STOP_PAIRS and not (set(pair) & _CJK_PARTICLES)
                ]
            cjk = True
        else:
            word = run.casefold()
            candidates = [] if len(word) < 2 or len(word) > MAX_TERM_LENGTH or word in STOP_WORDS else [word]
            cjk = False
        for term in candidates:
            if term not in seen:
                seen.add(term)
                found.append((term, cjk))
                if len(found) == MAX_TERMS:
                    return found
    return found


def search(room_id: int, text: str, *, limit: int = 8) -> list[int]:
    """The ids of `room_id`'s lore entries that best match `text`, best first (at most
    `limit`). Any text will do: it is never read as query syntax."""
    wanted = terms(text)
    if not wanted or limit <= 0:
        return []
    if connection.vendor == "postgresql":
        rows = _postgres_hits(room_id, wanted)
    elif connection.vendor == "sqlite":
        rows = _sqlite_hits(room_id, wanted)
    else:
        raise NotImplementedError(f"no lore search on {connection.vendor}")
    return _rank(rows)[:limit]


def _rank(rows: list[tuple[int, int, int, int, int, int]]) -> list[int]:
    """Rows of (entry id, entry order, term number, in title/keywords, in content, entries
    in the room), in any order, possibly several per entry and term: the ids, best first."""
    flags: dict[tuple[int, int], list[int]] = {}
    order: dict[int, int] = {}
    total = 0
    for entry_id, entry_order, term, head, body, room_size in rows:
        seen = flags.setdefault((entry_id, term), [0, 0])
        seen[0] |= bool(head)
        seen[1] |= bool(body)
        order[entry_id] = entry_order
        total = room_size
    matching: dict[int, int] = {}
    for _, term in flags:
        matching[term] = matching.get(term, 0) + 1
    score: dict[int, float] = dict.fromkeys(order, 0.0)
    for (entry_id, term), (head, body) in flags.items():
        rarity = math.log(1 + total / matching[term]) ** 2
        score[entry_id] += (HEAD_WEIGHT * head + BODY_WEIGHT * body) * rarity
    return sorted(score, key=lambda entry_id: (-score[entry_id], order[entry_id], entry_id))


def _sqlite_hits(room_id: int, wanted: list[tuple[str, bool]]) -> list[tuple]:
    # Words: two FTS5 lookups each, in the title/keywords and in the content (a term is
    # letters and digits only, so in double quotes it is one FTS5 string, never syntax).
    # CJK pairs: substrings of the room's entries' indexed text (FTS5 cannot split them).
    words = [(number, term) for number, (term, cjk) in enumerate(wanted) if not cjk]
    pairs = [(number, term) for number, (term, cjk) in enumerate(wanted) if cjk]
    params: list[object] = [room_id]
    parts = []
    if words:
        values = ", ".join(["(?, ?, ?)"] * (2 * len(words)))
        for number, term in words:
            params += [number, 1, f'{{title keywords}} : "{term}"', number, 0, f'content : "{term}"']
        parts.append(
            f"words(term, head, query) AS (VALUES {values}), "
            "word_hits AS ("
            " SELECT room.id, room.ord, words.term, words.head, 1 - words.head AS body"
            " FROM words JOIN keeper_lore_fts ON keeper_lore_fts MATCH words.query"
            " JOIN room ON room.id = keeper_lore_fts.rowid)"
        )
    if pairs:
        values = ", ".join(["(?, ?)"] * len(pairs))
        for number, term in pairs:
            params += [number, term]
        parts.append(
            f"pairs(term, text) AS (VALUES {values}), "
            "pair_hits AS ("
            " SELECT room.id, room.ord, pairs.term,"
            "  instr(f.title, pairs.text) > 0 OR instr(f.keywords, pairs.text) > 0 AS head,"
            "  instr(f.content, pairs.text) > 0 AS body"
            " FROM room JOIN keeper_lore_fts AS f ON f.rowid = room.id JOIN pairs"
            " ON instr(coalesce(f.title, '') || ' ' || coalesce(f.keywords, '') || ' '"
            "          || coalesce(f.content, ''), pairs.text) > 0)"
        )
    hits = " UNION ALL ".join(
        f"SELECT * FROM {name}" for name, present in (("word_hits", words), ("pair_hits", pairs)) if present
    )
    sql = (
        'WITH room AS (SELECT id, "order" AS ord FROM keeper_loreentry WHERE room_id = ?), '
        + ", ".join(parts)
        + f" SELECT hits.*, (SELECT count(*) FROM room) FROM ({hits}) AS hits"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


_POSTGRES_SQL = """
WITH terms AS (
    SELECT u.term,
           CASE WHEN u.phrase THEN phraseto_tsquery('english', u.text)
                ELSE plainto_tsquery('english', u.text) END AS query
    FROM unnest(%(texts)s::text[], %(phrases)s::boolean[]) WITH ORDINALITY AS u(text, phrase, term)
), usable AS (
    SELECT term, query FROM terms WHERE numnode(query) > 0
), matched AS (
    SELECT e.id, e."order", keeper_lore_document(e.title, e.keywords, e.content) AS document
    FROM keeper_loreentry e
    WHERE e.room_id = %(room)s
      AND keeper_lore_document(e.title, e.keywords, e.content) @@ ANY (ARRAY(SELECT query FROM usable))
)
SELECT m.id, m."order", u.term,
       ts_filter(m.document, '{a}') @@ u.query,
       ts_filter(m.document, '{d}') @@ u.query,
       (SELECT count(*) FROM keeper_loreentry WHERE room_id = %(room)s)
FROM matched m JOIN usable u ON m.document @@ u.query
"""


def _postgres_hits(room_id: int, wanted: list[tuple[str, bool]]) -> list[tuple]:
    # A CJK pair is the phrase of its two characters, each indexed as a word; the query
    # texts are bound parameters that plainto/phraseto_tsquery read as plain words.
    texts = [" ".join(term) if cjk else term for term, cjk in wanted]
    phrases = [cjk and len(term) > 1 for term, cjk in wanted]
    with connection.cursor() as cursor:
        cursor.execute(_POSTGRES_SQL, {"texts": texts, "phrases": phrases, "room": room_id})
        return cursor.fetchall()
