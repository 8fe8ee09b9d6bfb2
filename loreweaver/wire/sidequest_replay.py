"""What a SideQuest client's join is told of the story so far (docs/sidequest.md,
"Joining"): the replayed lines' numbers, and each frame told as what. The carrier
(`loreweaver/wire/sidequest.py`) only sends what this decides.

Both client generations clear their story when `ready` comes to a freshly loaded page
(the current one keeps the `seq`s it saw only to name the last one at its connect), so
such a page is told the whole replay, the member's own lines as `PLAYER_ACTION`, which
both draw as their player's own lines, as they draw one typed. A page that kept its
story (the current client's own retry on a live page) still shows what its player
typed, so its own lines are not told again; both drop story lines they already show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from keeper.chronicle import is_aside
from rooms.sidequest_services import lines_by_frame


@dataclass(frozen=True)
class StoryLines:
    """The replayed lines' numbers (`seq`: their transcript ids, rising, with gaps) and
    which of them the viewer played, by frame id."""

    seqs: dict[str, int] = field(default_factory=dict)
    mine: frozenset[str] = frozenset()


def story_lines(frame_ids: list[str], member_id: str) -> StoryLines:
    """The numbers of the story lines `frame_ids` and which of them are `member_id`'s
    (by who played them, whatever they were called then: a guest may come back under
    another name)."""
    seqs, mine = {}, set()
    for frame_id, (number, player) in lines_by_frame(frame_ids).items():
        seqs[frame_id] = number
        if member_id and player == member_id:
            mine.add(frame_id)
    return StoryLines(seqs, frozenset(mine))


def line_numbers(frame_ids: list[str]) -> dict[str, int]:
    """The story lines' numbers (their transcript ids, rising), by frame id."""
    return story_lines(frame_ids, "").seqs


def tells_own_lines(*, game_slug: str | None, last_seen_given: bool) -> bool:
    """Whether a join's replay tells the member's own lines back. The current client
    names `last_seen_seq` only in a freshly loaded page's connect; its own retry
    (without it) comes from a page that still shows what its player typed. The
    contract-era client (a connect by `world`) clears its story at every page load and
    its connect says nothing more, so it is always told them: a page of it that only
    lost its socket draws them twice."""
    return not game_slug or last_seen_given


def own_action(text: str) -> dict:
    """A `PLAYER_ACTION` payload telling one of the member's own lines back, as the
    client sent it: an out-of-character line (`(( … ))`) as an aside."""
    stripped = text.strip()
    if is_aside(stripped):
        return {"action": stripped[2:-2].strip(), "aside": True}
    return {"action": stripped, "aside": False}


# How `telling` says each replayed frame is told.
MINE = "mine"  # the member's own line: `PLAYER_ACTION`
LINE = "line"  # a story line: `NARRATION`, as live
ROLL_ON_TOP = "roll_on_top"  # a roll, at the top of the Keeper's narration that follows
ROLL = "roll"  # a roll on a line of its own
OTHER = "other"  # told as live (a picture)


def telling(held: list[dict], mine: frozenset[str], *, own_lines: bool) -> list[tuple[str, dict]]:
    """How each frame of the replay `held` is told, in order: the member's own lines
    (`mine`, by frame id) as their actions when `own_lines`, else left out; a roll at
    the top of the Keeper's narration that follows it, left out before a command's
    answer (which tells its own rolls, as it did live), or on a line of its own."""
    told = []
    for index, frame in enumerate(held):
        if frame["type"] == "narrative" and frame.get("id") in mine:
            if own_lines:
                told.append((MINE, frame))
        elif frame["type"] == "narrative":
            told.append((LINE, frame))
        elif frame["type"] == "dice":
            after = next((f for f in held[index + 1 :] if f["type"] != "dice"), {})
            speaker = after.get("speaker") if after.get("type") == "narrative" else None
            if speaker == "kp":
                told.append((ROLL_ON_TOP, frame))
            elif speaker != "system":
                told.append((ROLL, frame))
        else:
            told.append((OTHER, frame))
    return told
