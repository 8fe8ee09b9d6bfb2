"""Character creation for the SideQuest carrier (docs/sidequest.md, "Joining"): the
scenes, `back` and `edit`, the confirmation, and the character made by the table's own
commands played as the member's input. A mixin of `SideQuestConsumer`, which holds the
state it reads (`creation`, `making`) and the ways it answers (`_send`, `_error`)."""

from __future__ import annotations

import json

from channels.db import database_sync_to_async

from base.i18n import _
from keeper.sidequest_services import make_word
from loreweaver.wire.protocol.sidequest import Creation
from loreweaver.wire.sidequest_table import (
    CREATION_STEPS,
    character_state,
    creation_answer,
    creation_confirmation,
    creation_scene,
    message,
)


class CharacterCreation:
    """The creation half of the SideQuest carrier."""

    async def _create(self, creation: Creation) -> None:
        if self.creation is None:
            await self._error(_("There is no character creation going on."))
            return
        answers, step = self.creation, self.creation["step"]
        if creation.action == "back":
            if step == 0:
                await self._refuse(_("This is the first scene: there is nothing to go back to."))
                return
            answers["step"] = step - 1
            await self._creation_step()
            return
        if creation.action == "edit":
            if creation.target is None or creation.target >= len(CREATION_STEPS):
                await self._refuse(_("Name a scene to edit, from 0 to {last}."), last=len(CREATION_STEPS) - 1)
                return
            answers["step"] = creation.target
            await self._creation_step()
            return
        choice = creation.choice.strip()
        if step < len(CREATION_STEPS) and creation.phase == "confirmation":
            await self._creation_step()  # a confirmation before the last scene: that scene again
            return
        if step < len(CREATION_STEPS):
            answer = creation_answer(step, choice) if choice else ""
            if answer is None:
                count = len(creation_scene(step)["choices"])
                await self._refuse(_("Choose one of 1 to {count}, or type your own."), count=count)
                return
            if answer:
                answers[CREATION_STEPS[step]] = answer
                # On to the next scene not answered yet (after an edit, the rest are kept).
                later = [
                    i for i in range(step + 1, len(CREATION_STEPS)) if not answers.get(CREATION_STEPS[i])
                ]
                answers["step"] = later[0] if later else len(CREATION_STEPS)
            await self._creation_step()
            return
        if choice.lower() in ("2", "no", "n", "否"):
            answers["step"] = 0  # start over, each answer offered again
            await self._creation_step()
            return
        if choice.lower() not in ("1", "yes", "y", "是", ""):
            await self._refuse(_("Answer 1 (Yes) to make this character, or 2 (No) to start over."))
            return
        # The character is made by the table's own commands, played as the member's input
        # (the room's rule system's `.coc` or `.dnd`, then `.bio`): this carrier only
        # translates. `complete` follows once the table's state shows the character.
        if self.making is not None:
            return  # already on its way
        word = await database_sync_to_async(make_word)(self.session.seat.room_id)
        self.making = []
        background = f"Pronouns: {answers['pronouns']}. {answers['backstory']}"
        for line in (f".{word} {answers['name']}", f".bio {background}"):
            await self.session.receive_text(json.dumps({"type": "input", "text": line}))

    async def _made(self, state: dict) -> None:
        """A state while the character is being made: once both commands are answered,
        `complete` if it shows the character, else the table's refusal as `ERROR` and the
        confirmation again."""
        answers, told = self.creation or {}, self.making or []
        character = state.get("character")
        if len(told) < 2:
            return  # the commands' answers are not all in
        self.making = None
        if not character:
            await self._error(told[0])
            await self._creation_step()
            return
        self.creation = None
        # Read before `complete` is told: the client answers `complete` at once (its
        # seat), and the opening must reach it first, as one piece with `complete`.
        opening = await self._opening()
        self.backstory = f"Pronouns: {answers.get('pronouns', '')}. {answers.get('backstory', '')}"
        made = {
            **character_state(character),
            "stats": dict(character.get("attributes") or {}),
            "pronouns": answers.get("pronouns", ""),
            "backstory": answers.get("backstory", ""),
        }
        await self._send(message("CHARACTER_CREATION", {"phase": "complete", "character": made}))
        # The table's line for it (what the others saw, and what a reloaded page is told).
        await self._narrate(told[0])
        await self._tell_opening(opening)  # the story has not begun: its opening ends the wait

    async def _creation_step(self) -> None:
        """The scene creation is at, or the confirmation once every scene is answered."""
        answers = self.creation or {}
        step = answers.get("step", 0)
        if step < len(CREATION_STEPS):
            await self._send(message("CHARACTER_CREATION", creation_scene(step, answers)))
        else:
            await self._send(message("CHARACTER_CREATION", creation_confirmation(answers)))
