"""The campaign's memory: a chronicle entry for every finished turn, and the rolling
summary that keeps the Keeper's brief within the model's window.

A chronicle entry keeps what the table saw (who acted, the line, the narration, the
public rolls, the NPCs' lines, the scene and the clock) apart from what only the
keepers know (hidden rolls, the Keeper's notes). It keeps the story only: the
offline Keeper's notice that no model is connected is a notice, never a turn's text;
the narration, the rolls and the NPCs' lines are kept in the order they were told
(`told`), and the Keeper's markdown as plain text (`plain_text`). `.recap` reads the
table's side only; `.chronicle` (keepers) reads both. A turn the table saw nothing of
(a hidden roll) has no table's side at all: `.recap` and the summary leave it out.

The summary covers the story up to a transcript line; the brief holds the summary and
every line after it. When the brief passes `FOLD_AT` of the window, the oldest lines
are folded into the summary until it would be back under `FOLD_TO`, never the lines of
the last `KEPT_TURNS` turns (`plan_fold`); the fold runs after the turn, in the
background (`keeper/kp/memory.py`), by the model when there is one, else here by
extraction (`extractive_summary`). The summary is written from the table's side only;
the folded turns' keeper-only facts go to a separate digest the Keeper alone reads.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from base import frames
from base.i18n import _, say
from keeper.models import UNSEEN_BY_THE_TABLE, CampaignSummary, ChronicleEntry, Story, TableSettings
from keeper.rules.packs import catalog
from rooms.models import Speaker, TranscriptEntry

FOLD_AT, FOLD_TO = 0.6, 0.4
KEPT_TURNS = 4
SUMMARY_SHARE = 0.15  # of the window, at most, for the summary itself
DIGEST_CHARS = 3000
OUTCOME_CHARS = 1200
TOLD_CHARS = 3000  # what a turn told, in all
STORY_SPEAKERS = (Speaker.PLAYER, Speaker.KEEPER)


def is_aside(text: str) -> bool:
    """Whether a line is out of character (`(( … ))`): shown to the table, never part of
    the story the Keeper answers or remembers."""
    stripped = text.strip()
    return stripped.startswith("((") and stripped.endswith("))")


def estimate_tokens(text: str) -> int:
    """A model's tokens for `text`, estimated on the high side: about four Latin
    characters to a token, a token for every other character (Chinese, say)."""
    # Encoding drops every other character: the count is done in C, not a loop per character.
    ascii_chars = len(text.encode("ascii", "ignore"))
    return ascii_chars // 4 + (len(text) - ascii_chars) + 1


def roll_line(frame: dict, locale: str = "en") -> str:
    """A dice frame as a short line: who, what (a skill by its name in `locale`), the
    total and how it went (its outcome's label in `locale`: a recorded frame holds it in
    every language)."""
    frame = frames.dice_for_viewer(frame, locale)
    skill = frame.get("skill")
    if skill:
        what = catalog().skill_label(str(skill), locale, str(frame.get("expr") or ""))
    else:
        what = frame.get("expr") or "?"
    line = f"{frame.get('actor', '?')} {what}: {frame.get('total', '?')}"
    outcome = frame.get("outcome")
    if isinstance(outcome, dict) and outcome.get("label"):
        line += f" ({outcome['label']})"
    return line


# The marks of the markdown the Keeper writes (and the clients render), whose words a
# plain text keeps. Code spans are set aside first: a mark inside one is its text.
# From the first backtick of a run only: tried at each one, a long run cost the square
# of its length.
_CODE = re.compile(r"(?<!`)`+([^`\n]+?)`+")
_ASIDE = "\ue000"  # a private-use character marks where a code span was set aside
_SET_ASIDE = re.compile(r"\ue000(\d+)\ue000")
_LINE_MARKS = [
    (re.compile(r"^[ \t]*([-*_])([ \t]*\1){2,}[ \t]*$", re.M), ""),  # a rule
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M), r"\1"),  # a heading
    (re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M), ""),  # a quote
    (re.compile(r"^([ \t]*)[-*+][ \t]+", re.M), r"\1"),  # a list's bullet
]
# As in CommonMark, stars mark words inside a word too (说*走*吧), underscores do not.
_INLINE_MARKS = [
    re.compile(r"\*\*(?![\s*])(.+?)(?<![\s*])\*\*"),
    re.compile(r"(?<![\w_])__(?!\s)(.+?)(?<!\s)__(?![\w_])"),
    re.compile(r"\*(?![\s*])(.+?)(?<![\s*])\*"),
    re.compile(r"(?<![\w_])_(?![\s_])(.+?)(?<![\s_])_(?![\w_])"),
    re.compile(r"~~(?!\s)(.+?)(?<!\s)~~"),
]


def plain_text(markdown: str) -> str:
    """`markdown` (the Keeper's narration, an NPC's line) as plain text: the marks of
    headings, quotes, bullets, bold, italics, strikes and code go, their words stay.
    A mark that marks nothing (`2 * 3`, a snake_case word) is a word too."""
    code: list[str] = []

    def set_aside(span: re.Match) -> str:
        code.append(span.group(1))
        return f"{_ASIDE}{len(code) - 1}{_ASIDE}"

    text = _CODE.sub(set_aside, markdown.replace(_ASIDE, ""))
    for pattern, replacement in _LINE_MARKS:
        text = pattern.sub(replacement, text)
    for _pass in range(2):  # ***both*** is bold around italics
        for pattern in _INLINE_MARKS:
            text = pattern.sub(r"\1", text)
    return _SET_ASIDE.sub(lambda aside: code[int(aside.group(1))], text).strip()


@dataclass
class Turn:
    """What a finished turn leaves in the chronicle. `told`, when the turn knows it: its
    public side after the line in the order the table saw it (texts, and the public
    rolls as dice frames); without it the entry reads the rolls, the NPCs' lines, then
    the outcome."""

    actor: str
    line: str = ""
    outcome: str = ""
    rolls: list[dict] | None = None
    npc_lines: list[str] | None = None
    keeper_facts: list[str] | None = None
    hidden_rolls: list[dict] | None = None  # written with the keeper's facts, in the room's language
    told: list[str | dict] | None = None

    def told_lines(self, locale: str) -> list[str]:
        """`told` as texts (a roll as its line in `locale`, in brackets), within
        `TOLD_CHARS` in all."""
        lines, left = [], TOLD_CHARS
        for part in self.told or []:
            text = f"({roll_line(part, locale)})" if isinstance(part, dict) else part.strip()
            if text and left > 0:
                lines.append(text[:left])
                left -= len(text)
        return lines


def _language(cursor: CursorWrapper, table: str, room_id: int) -> str:
    cursor.execute(f"SELECT language FROM {table} WHERE room_id = %s", [room_id])
    return (cursor.fetchone() or [""])[0] or server_language()


def server_language() -> str:
    """The language of a room whose keepers chose none: the server's."""
    return settings.TRPG_LOCALE


# One encoder for the entry's lists (`json.dumps` makes one at each call); most of a
# roll's are empty.
_LIST_ENCODER = json.JSONEncoder(ensure_ascii=False)


def _json_list(items: list[str]) -> str:
    return _LIST_ENCODER.encode(items) if items else "[]"


class _Latest(enum.Enum):
    LINE = "the room's latest transcript line, read in the turn's transaction"


LATEST_LINE = _Latest.LINE


def record(
    room_id: int,
    turn: Turn,
    *,
    last_line_id: int | _Latest | None = LATEST_LINE,
    language: str = "",
    story: tuple[str, int | None] | None = None,
) -> None:
    """Add the finished `turn` to the room's chronicle, with the scene and the clock as
    the turn left them (`story`, (scene, clock minutes), when the caller read them in
    the turn's transaction after the last change it made; `last_line_id`: the turn's
    last transcript line when the caller knows it, None when it knows the room has
    none). Rolls and the clock are written in the room's language (`language`, when the
    caller has just read it)."""
    sql, params = entry_insert(room_id, turn, last_line_id=last_line_id, language=language, story=story)
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)


def entry_insert(
    room_id: int,
    turn: Turn,
    *,
    last_line_id: int | _Latest | None = LATEST_LINE,
    language: str = "",
    story: tuple[str, int | None] | None = None,
) -> tuple[str, list]:
    """The statement that adds `turn` to the room's chronicle, and its parameters, as
    `record` runs it: for a caller that sends it with another write of the same turn
    (`rooms.services.turn_events_record`'s `along`). What the entry needs and the caller
    did not read (`story`, `language`) is read here; the room's latest line, by the
    statement itself."""
    # Plain SQL: every line of play is chronicled, and the ORM cost more than the rows.
    stories, lines, entries, table = (
        model._meta.db_table for model in (Story, TranscriptEntry, ChronicleEntry, TableSettings)
    )
    db = connections[DEFAULT_DB_ALIAS]  # looked up once, not at each use of the proxy
    if story is None or not language:
        with db.cursor() as cursor:
            if story is None:
                cursor.execute(
                    f"SELECT scene_name, clock_minutes FROM {stories} WHERE room_id = %s", [room_id]
                )
                story = cursor.fetchone() or ("", None)
            locale = language or _language(cursor, table, room_id)
    else:
        locale = language
    scene, minutes = story
    # The room's latest line, as the statement finds it in the turn's transaction.
    last_line = f"(SELECT MAX(id) FROM {lines} WHERE room_id = %s)" if last_line_id is LATEST_LINE else "%s"
    json_value = "%s::jsonb" if db.vendor == "postgresql" else "%s"
    sql = (
        f"INSERT INTO {entries} (room_id, actor, line, outcome, dice, npc_lines, told, scene, clock, "
        f"keeper_facts, last_line_id, created_at) "
        f"VALUES (%s, %s, %s, %s, {json_value}, {json_value}, {json_value}, %s, %s, %s, {last_line}, %s)"
    )
    hidden = (say(locale, _("{roll} (hidden)"), roll=roll_line(f, locale)) for f in turn.hidden_rolls or [])
    params = [
        room_id,
        turn.actor[:64],
        turn.line[:2000],
        turn.outcome[:OUTCOME_CHARS],
        _json_list([roll_line(frame, locale) for frame in turn.rolls or []]),
        _json_list([line[:600] for line in turn.npc_lines or []]),
        _json_list(turn.told_lines(locale)),
        (scene or "")[:200],
        Story(clock_minutes=minutes).clock_text(locale) if minutes is not None else "",
        "\n".join([*(turn.keeper_facts or []), *hidden])[:2000],
        room_id if last_line_id is LATEST_LINE else last_line_id,
        db.ops.adapt_datetimefield_value(timezone.now()),
    ]
    return sql, params


def summary_of(room_id: int) -> CampaignSummary:
    """The room's summary (empty, covering nothing, when it has none yet)."""
    return CampaignSummary.objects.filter(room_id=room_id).first() or CampaignSummary(room_id=room_id)


def unfolded_lines(room_id: int, after: int, limit: int) -> list[TranscriptEntry]:
    """The story lines after transcript line `after`, oldest first (at most the newest
    `limit`; asides are not story)."""
    newest = TranscriptEntry.objects.filter(
        room_id=room_id, id__gt=after, speaker__in=STORY_SPEAKERS
    ).order_by("-id")[:limit]
    return [line for line in reversed(newest) if not is_aside(line.text)]


def protected_from(lines: list[TranscriptEntry]) -> int:
    """The index in `lines` from which the last `KEPT_TURNS` turns begin (a turn starts
    at a player's line)."""
    starts = [i for i, line in enumerate(lines) if line.speaker == Speaker.PLAYER]
    return starts[-KEPT_TURNS] if len(starts) >= KEPT_TURNS else 0


def plan_fold(lines: list[TranscriptEntry], fixed_tokens: int, window: int) -> int | None:
    """The transcript line to fold through so the brief (`fixed_tokens` plus `lines`)
    drops under `FOLD_TO` of `window`; None while it is under `FOLD_AT`."""
    sizes = [estimate_tokens(line.text) + 4 for line in lines]
    total = fixed_tokens + sum(sizes)
    if total <= FOLD_AT * window:
        return None
    through = None
    for index in range(protected_from(lines)):
        total -= sizes[index]
        through = lines[index].id
        if total <= FOLD_TO * window:
            break
    return through


@dataclass(frozen=True)
class FoldMaterial:
    """What a fold summarizes: the summary so far, the story's public side up to the
    fold point, and the keeper-only facts of the turns folded."""

    room_id: int
    start: int  # the summary's `through_line_id` when the fold was planned
    through: int
    summary: str
    public: list[str]  # each folded turn as the table saw it
    gists: list[str]  # each folded turn in a line: the line, and the first sentence of what came of it
    keeper_facts: list[str]
    budget_tokens: int


def fold_material(room_id: int, through: int, window: int) -> FoldMaterial | None:
    """What folding the story up to transcript line `through` needs; None when the
    summary already covers it."""
    summary = summary_of(room_id)
    if through <= summary.through_line_id:
        return None
    entries = ChronicleEntry.objects.filter(
        room_id=room_id, last_line_id__gt=summary.through_line_id, last_line_id__lte=through
    ).order_by("id")
    return FoldMaterial(
        room_id=room_id,
        start=summary.through_line_id,
        through=through,
        summary=summary.text,
        public=[entry.public_text() for entry in entries if entry.public_text()],
        gists=[_gist(entry) for entry in entries if entry.public_text()],
        keeper_facts=[entry.keeper_facts for entry in entries if entry.keeper_facts],
        budget_tokens=max(200, int(window * SUMMARY_SHARE)),
    )


def _first_sentence(text: str, limit: int) -> str:
    first = text.strip().split("\n")[0].split(". ")[0].strip()[:limit]
    return first if not first or first[-1] in ".!?。！？" else first + "."


def _gist(entry: ChronicleEntry) -> str:
    gist = f"{entry.actor}: {_first_sentence(entry.line, 160)}"
    if entry.dice:
        gist += " (" + "; ".join(entry.dice) + ")"
    if entry.outcome:
        gist += " " + _first_sentence(entry.outcome, 200)
    return gist


def extractive_summary(material: FoldMaterial) -> str:
    """The summary without a model: the summary so far, then a line for each folded
    turn (`_gist`), the oldest dropped first when it would outgrow its budget."""
    sentences = [line for line in material.summary.splitlines() if line.strip()]
    sentences += [f"- {gist}" for gist in material.gists]
    while len(sentences) > 1 and estimate_tokens("\n".join(sentences)) > material.budget_tokens:
        sentences.pop(0)
    return "\n".join(sentences)


def save_fold(material: FoldMaterial, text: str) -> bool:
    """Keep the fold, unless another fold of the room got there first (any process)."""
    with transaction.atomic():
        summary, _created = CampaignSummary.objects.select_for_update().get_or_create(
            room_id=material.room_id
        )
        if summary.through_line_id != material.start:
            return False
        digest = "\n".join(part for part in (summary.keeper_digest, *material.keeper_facts) if part)
        summary.text = text.strip()
        summary.keeper_digest = digest.strip()[-DIGEST_CHARS:]
        summary.through_line_id = material.through
        summary.folds += 1
        summary.save()
    return True


def recent(room_id: int, count: int) -> list[ChronicleEntry]:
    """The room's last `count` chronicle entries, oldest first."""
    return list(reversed(ChronicleEntry.objects.filter(room_id=room_id).order_by("-id")[:count]))


def recent_public(room_id: int, count: int) -> list[ChronicleEntry]:
    """The room's last `count` chronicle entries the table saw something of, oldest
    first (a hidden roll's entry is the keepers' alone)."""
    seen = ChronicleEntry.objects.filter(room_id=room_id).exclude(UNSEEN_BY_THE_TABLE)
    return list(reversed(seen.order_by("-id")[:count]))
