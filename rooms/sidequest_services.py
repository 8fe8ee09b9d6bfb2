"""What the SideQuest carrier (`loreweaver/wire/sidequest*.py`) reads of the transcript:
whether a room's story has begun, how many turns it has played (what the current
client's lobby shows), and the numbers of the lines a join's replay tells. The carrier
calls these (in the database thread) and only turns the answers into the contract's
messages (docs/sidequest.md)."""

from __future__ import annotations

from rooms.models import Speaker, TranscriptEntry

# The lines of play: what a player says and what the Keeper and its NPCs answer.
_PLAY = (Speaker.PLAYER, Speaker.KEEPER, Speaker.NPC)


def story_begun(room_id: int) -> bool:
    """Whether a line of play has been said in the room (a command's answer is not one)."""
    return TranscriptEntry.objects.filter(room_id=room_id, speaker__in=_PLAY).exists()


def turns_played(room_id: int) -> int:
    """How many turns the room has played: the lines its players have said."""
    return TranscriptEntry.objects.filter(room_id=room_id, speaker=Speaker.PLAYER).count()


def lines_by_frame(frame_ids: list[str]) -> dict[str, tuple[int, str]]:
    """The story lines `frame_ids` that the transcript holds, each as its number (its
    transcript id: rising, with gaps) and the member who said it ("" for none)."""
    if not frame_ids:
        return {}
    rows = TranscriptEntry.objects.filter(frame_id__in=frame_ids).values_list("frame_id", "id", "member_id")
    return {frame_id: (number, member_id) for frame_id, number, member_id in rows}
