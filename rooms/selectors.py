"""Reads of the table's state: the story a joining member is shown."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from rooms.models import Room, Speaker, TranscriptEntry, TurnEvent


@dataclass
class Replay:
    """The frames a joining member is shown, and the rows they came from.

    `rows[i]` names the stored row (`("entry" | "event" | "media", id)`) that
    `frames[i]` shows, or None for a frame that is no row: a session uses them never
    to show one row twice (a line committed while the replay was being read, or a
    catch-up after an outage). Other apps add their part after the story (the media
    library, the audio desk).
    """

    frames: list[dict] = field(default_factory=list)
    rows: list[tuple[str, int] | None] = field(default_factory=list)

    def add(self, frame: dict, row: tuple[str, int] | None = None) -> None:
        """Append one frame (and the row it shows)."""
        self.frames.append(frame)
        self.rows.append(row)


def replay_for(
    *, room: Room, member_id: str, is_keeper: bool, limit: int | None = None, answers: bool = False
) -> Replay:
    """The last `limit` story lines of `room`, each followed by the events it anchored
    (the rest of a join's replay is the media library's: `media_store.selectors`).

    Events the viewer may not see (keeper-only rolls) are left out, and so are the
    commands' answers to the table unless `answers` (the loreweaver replay is the story
    lanes, the dice and the NPCs' lines; a SideQuest client, whose reloaded page keeps
    nothing, is told the answers too). Events recorded before the room's first line are
    replayed first, when the window reaches back to the beginning of the room.
    """
    limit = settings.TRPG_REPLAY_ENTRIES if limit is None else limit
    entries = list(TranscriptEntry.objects.filter(room=room).order_by("-id")[:limit])
    entries.reverse()
    replay = Replay()
    if not entries:
        covers_beginning = True
    else:
        covers_beginning = not TranscriptEntry.objects.filter(room=room, id__lt=entries[0].id).exists()

    events = TurnEvent.objects.filter(room=room, anchor__in=entries)
    if covers_beginning:
        events = events | TurnEvent.objects.filter(room=room, anchor__isnull=True)
    by_anchor: dict[int | None, list[TurnEvent]] = {}
    for event in events.order_by("id"):
        by_anchor.setdefault(event.anchor_id, []).append(event)

    def add_events(anchor_id: int | None) -> None:
        for event in by_anchor.get(anchor_id, []):
            if event.visible_to(member_id=member_id, is_keeper=is_keeper) and (
                answers or not event.is_answer
            ):
                replay.add(event.frame, ("event", event.id))

    add_events(None)
    for entry in entries:
        replay.add(entry.as_frame(), ("entry", entry.id))
        add_events(entry.id)
    return replay


def open_round(room_id: int) -> tuple[int, frozenset[str]]:
    """The open round of a structured room: the id of the Keeper's last line before
    it (0 for none), and the members who have a line in it."""
    last_keeper = (
        TranscriptEntry.objects.filter(room_id=room_id, speaker=Speaker.KEEPER)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    ) or 0
    actors = TranscriptEntry.objects.filter(room_id=room_id, id__gt=last_keeper, speaker=Speaker.PLAYER)
    return last_keeper, frozenset(actors.values_list("member_id", flat=True))


def round_still_open(room_id: int, opened_after: int) -> bool:
    """Whether no Keeper line has answered the round opened after line `opened_after`."""
    return not TranscriptEntry.objects.filter(
        room_id=room_id, speaker=Speaker.KEEPER, id__gt=opened_after
    ).exists()
