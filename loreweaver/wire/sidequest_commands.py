"""The SideQuest client's commands (docs/sidequest.md, "Playing"): its slash commands
(`/status`, `/inventory`, `/map`, `/help`, `/save`, `/gm ...`, the last two played as
the table's own commands) and its journal, asked for or told unasked. A mixin of
`SideQuestConsumer`, which holds the state it reads (`state`, `session`) and the ways
it answers (`_send`, `_narrate`, `_error`)."""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from django.conf import settings

from base.i18n import _, say
from loreweaver.wire import coordination
from loreweaver.wire.protocol.sidequest import JournalRequest
from loreweaver.wire.sidequest_table import character_sheet, inventory, journal, map_update, message

# `/gm` verbs, and the keeper's command each one is (docs/sidequest.md): it is played as
# the keeper's input, so the room's turn, the rate limit, the chronicle, the hooks and the
# role as the key gives it now all apply.
_GM_COMMANDS = {"set": ".var set {}", "spawn": ".npc add {} | |", "teleport": ".scene {}", "dmg": ".dmg {}"}


class ClientCommands:
    """The commands half of the SideQuest carrier."""

    async def _slash(self, text: str) -> None:
        word, _sep, rest = text[1:].partition(" ")
        word, rest = word.lower(), rest.strip()
        character = (self.state or {}).get("character") or {}
        location = ((self.state or {}).get("scene") or {}).get("name", "")
        if word == "status":
            await self._send(message("CHARACTER_SHEET", character_sheet(character)))
        elif word == "inventory":
            await self._send(message("INVENTORY", inventory(character)))
        elif word == "map":
            await self._send(message("MAP_UPDATE", map_update(location)))
        elif word == "help":
            await self._narrate(
                say(
                    self.session.locale,
                    _(
                        "Commands: /status, /inventory, /map, /save, /help, /tone <axis> <value>; "
                        "keepers: /gm set <variable> <value>, /gm spawn <npc>, /gm teleport <place>, "
                        "/gm dmg <who> <n>. Dot commands work too: .r 1d20, .help."
                    ),
                )
            )
        elif word == "tone":
            await self._narrate(
                say(self.session.locale, _("This table has no tone axes; the Keeper follows the story."))
            )
        elif word == "save":
            await self._command(".save")
        elif word == "gm":
            await self._gm(rest)
        else:
            await self._error(
                say(self.session.locale, _("Unknown command /{word}; /help lists them."), word=word)
            )

    async def _gm(self, rest: str) -> None:
        verb, _sep, argument = rest.partition(" ")
        template, argument = _GM_COMMANDS.get(verb.lower()), argument.strip()
        if template is None or not argument:
            usage = _(
                "Use /gm set <variable> <value>, /gm spawn <npc>, /gm teleport <place> or /gm dmg <who> <n>."
            )
            await self._error(say(self.session.locale, usage))
            return
        # Whether the caller is a keeper is the turn's to say, from the key as it is
        # then; a refusal comes back as the table's answer, and is told as `ERROR`.
        await self._command(template.format(argument), gm=True)

    async def _command(self, text: str, *, gm: bool = False) -> None:
        self.mine, self.rolls, self.gm = text, [], gm
        await self.play_mine(text)

    async def play_mine(self, text: str) -> None:
        """Hand my action `text` to the session as an input, and note which input it is."""
        taken = self.session.inputs.taken
        # Its number if the session takes it, known before: an earlier input's end may
        # be told while the session checks this one.
        self.mine_input = taken + 1
        await self.session.receive_text(json.dumps({"type": "input", "text": text}))
        if self.session.inputs.taken == taken:
            self.mine_input = None  # refused before the game saw it: the next end is its

    async def _journal(self, request: JournalRequest) -> None:
        """`JOURNAL_RESPONSE`. Each request reads the room's lore and chronicle, so it is
        paced by the member's own input bucket, as a line of play is."""
        seat = self.session.seat
        allowed = await coordination.shared().take_tokens(
            [f"member:{seat.room_id}:{seat.member.member_id}"],
            burst=settings.TRPG_RATE_BURST,
            refill_seconds=settings.TRPG_RATE_REFILL_SECONDS,
        )
        if not allowed:
            self.session.send_error("rate_limited")
            return
        entries = await database_sync_to_async(journal)(seat.room_id, request.category, request.sort_by)
        await self._send(message("JOURNAL_RESPONSE", {"entries": entries}))

    async def _tell_quests(self) -> None:
        """The journal's open quests, unasked: neither client generation has a quest panel
        or asks for its journal when a page loads, and both show the entries of any
        `JOURNAL_RESPONSE`."""
        if self.session.seat is None:
            return
        entries = await database_sync_to_async(journal)(self.session.seat.room_id, "Quest", "time")
        if entries:
            await self._send(message("JOURNAL_RESPONSE", {"entries": entries}))
