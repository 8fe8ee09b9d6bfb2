"""What a SideQuest client is told when the story of its room has not begun
(docs/sidequest.md, "Joining"): an opening scene.

The client waits ("the narrator gathers their thoughts") from its `ready`, or its
character's `complete`, until a `NARRATION_END` ends the wait. A room with a story has
its replay told, but the first player of a room has nothing to be told: without an
opening they would wait until they typed. So a member who comes to the game while no
line of play has been said is told the room's opening (the module's title, what the
players may know at its start, and where they are; or, with no module, where they
are and what to do), then `NARRATION_END`. The opening is this carrier's own: it is
not a line of the story, so nothing is stored.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from base.i18n import _, say
from keeper.sidequest_services import story_start
from loreweaver.wire.sidequest_table import message


def opening(room_id: int, locale: str) -> str | None:
    """The opening scene told to a member whose room's story has not begun (None once
    it has), in `locale`: never the module's truth, only what players may know."""
    start = story_start(room_id)
    if start is None:
        return None
    parts = [part for part in (start.module_title, start.module_intro) if part]
    if start.scene_name:
        parts.append(say(locale, _("You are at {place}."), place=start.scene_name))
    if not parts:
        room = start.room_name
        parts.append(say(locale, _("The story at {room} has not begun: you are the first here."), room=room))
    what_to_do = _("Say what your character does, and the Keeper will answer. /help lists what you can type.")
    parts.append(say(locale, what_to_do))
    return "\n\n".join(parts)


class OpeningScene:
    """The consumer's side (`SideQuestConsumer`): the opening, when there is one."""

    async def _open_story(self) -> None:
        """Tell the opening scene and end the client's wait, if the story has not begun."""
        await self._tell_opening(await self._opening())

    async def _opening(self) -> str | None:
        """The opening scene's text, if the story has not begun (None once it has)."""
        seat = self.session.seat
        if seat is None:
            return None
        return await database_sync_to_async(opening)(seat.room_id, self.session.locale)

    async def _tell_opening(self, text: str | None) -> None:
        """Tell the opening scene `text` (read by `_opening`) and end the client's wait."""
        if text is None:
            return
        await self._narrate(text)
        await self._send(message("NARRATION_END", {"state_delta": self._delta()}))
