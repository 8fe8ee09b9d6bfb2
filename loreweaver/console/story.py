"""A room's story as its players saw it, for the console's room page: each line with
its time and speaker, its text rendered (the markdown the clients render, made safe),
and after it the public dice rolls and NPC lines of its turn. Keeper-only events are
left out, as a player's replay leaves them out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

from base import frames
from base.i18n import active_locale
from rooms.models import Audience, Room, TranscriptEntry, TurnEvent


def _speaker(code: str) -> str:
    """A speaker's label in the page's language (the code itself when it has none)."""
    labels = {
        "kp": pgettext("who speaks", "Keeper"),
        "system": pgettext("who speaks", "System"),
        "npc": pgettext("who speaks", "NPC"),
        "player": pgettext("who speaks", "Player"),
    }
    return labels.get(code, code)


# The inline markdown the table's lines use, applied to text already escaped.
_INLINE = [
    (re.compile(r"`([^`\n]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])"), r"<em>\1</em>"),
]


def render_text(text: str) -> SafeString:
    """`text` as safe HTML: escaped first, then bold, italics, code and line breaks."""
    html = escape(text)
    for pattern, replacement in _INLINE:
        html = pattern.sub(replacement, html)
    paragraphs = [part.replace("\n", "<br>") for part in re.split(r"\n{2,}", html.strip())]
    return mark_safe("".join(f"<p>{part}</p>" for part in paragraphs if part))


@dataclass
class StoryLine:
    """One line of the story and what its turn showed after it."""

    # None for what the table saw before the room's first line (rolls, say).
    entry: TranscriptEntry | None
    events: list[dict] = field(default_factory=list)


def story_as_seen(room: Room, limit: int) -> list[StoryLine]:
    """The room's last `limit` lines, oldest first, each with its public events; first,
    when the window reaches the room's beginning, what the table saw before its first
    line (a line of its own, with no entry)."""
    entries = list(TranscriptEntry.objects.filter(room=room).order_by("-id")[:limit])
    entries.reverse()
    lines: dict[int | None, StoryLine] = {None: StoryLine(None)}
    lines.update((entry.pk, StoryLine(entry)) for entry in entries)
    anchored = Q(anchor__in=entries)
    if not entries or not TranscriptEntry.objects.filter(room=room, id__lt=entries[0].pk).exists():
        anchored |= Q(anchor__isnull=True)
    public = TurnEvent.objects.filter(anchored, room=room, audience=Audience.EVERYONE)
    for event in public.order_by("id"):
        lines[event.anchor_id].events.append(event.frame)
    for line in lines.values():
        line.events = each_roll_once(line.events)
    return [line for line in lines.values() if line.entry is not None or line.events]


def each_roll_once(events: list[dict]) -> list[dict]:
    """`events` without the text line that follows a run of rolls and names each one's
    total (a `.r`'s answer to the table): the table draws that line as its rolls' card,
    so players saw each roll once, and so does the page. Any other line stays."""
    kept: list[dict] = []
    rolls: list[dict] = []
    for frame in events:
        if frame.get("type") == "dice":
            rolls.append(frame)
            kept.append(frame)
            continue
        text = str(frame.get("text") or "")
        told_the_rolls = frame.get("speaker") == "system" and all(
            re.search(rf"(^|\D){re.escape(str(roll.get('total')))}(?!\d)", text) for roll in rolls
        )
        if not (rolls and told_the_rolls):
            kept.append(frame)
        rolls = []
    return kept


def _event_html(frame: dict) -> SafeString:
    if frame.get("type") == "dice":
        # A recorded outcome holds its label in every language: the console's is the reader's.
        frame = frames.for_viewer(frame, active_locale())
        outcome = (frame.get("outcome") or {}).get("label")
        return format_html(
            "<li class='dice'>{}</li>",
            format_html(
                gettext("🎲 {} rolls {}: {} → <b>{}</b>{}"),
                frame.get("actor", "?"),
                frame.get("expr", ""),
                ", ".join(str(r) for r in frame.get("rolls", [])),
                frame.get("total", ""),
                format_html(" ({})", outcome) if outcome else "",
            ),
        )
    if frame.get("type") == "narrative":
        return format_html(
            "<li class='npc'><b>{}</b>: {}</li>",
            frame.get("name") or _speaker(frame.get("speaker", "")),
            render_text(frame["text"]),
        )
    return format_html("<li><i>{}</i></li>", frame.get("type", "?"))


def story_html(lines: list[StoryLine]) -> SafeString:
    """The story lines as the room page shows them."""
    return format_html(
        "<ol class='transcript'>{}</ol>",
        format_html_join(
            "", "<li><b>{}</b> <small>{}</small>{}{}</li>", (_line_parts(line) for line in lines)
        ),
    )


def _line_parts(line: StoryLine) -> tuple:
    """A line's speaker, time, text and events, as `story_html` fills them in."""
    events = (
        format_html("<ul>{}</ul>", format_html_join("", "{}", ((_event_html(e),) for e in line.events)))
        if line.events
        else ""
    )
    entry = line.entry
    if entry is None:
        return (gettext("Before the first line"), "", "", events)
    return (
        entry.name or _speaker(entry.speaker),
        entry.created_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        render_text(entry.text),
        events,
    )
