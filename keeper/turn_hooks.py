"""One turn of the room's event hooks (`packs/hooks.py`): the events fired where they
happen, the variables the hooks write kept as the declared variables allow, and what
the table is to be shown gathered for the end of the turn (docs/packs.md, "Event
hooks").

In a Keeper turn (`keeper/kp/turn.py`): `turn_start` before the brief is built (what
the hooks `inject` joins it), `tool_use` before each tool call (a `denyTool` is the
call's result and the tool does not run), then after the last round, before the
reply's closing frame: `dice_rolled` (the turn's public rolls), `clock_advanced`
(once per advance), `reply_ready`, and `variables_changed` once when anything wrote a
variable. Its own writes do not fire it again. A typed roll or a human keeper's line
fires `turn_start`, `dice_rolled`, `reply_ready` and `variables_changed` after the fact;
there `narrate` is a line of the story of its own and `rewriteReply` changes nothing.

A room without scripts costs nothing: no interpreter starts and no variable is read.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async

from base.i18n import Refusal, _, say
from keeper import variables
from packs import hooks

log = logging.getLogger(__name__)

MAX_CLOCK_ADVANCES = 8
MAX_RECORDED_WRITES = 64


@dataclass
class TurnHooks:
    """The hooks of one turn of the room `room_id`, for the member `actor`."""

    room_id: int
    scripts: list[hooks.Script]
    actor: str
    line: str = ""  # the line of play that started the turn
    locale: str = "en"
    view: dict[str, Any] | None = None
    budget: hooks.Budget = field(default_factory=hooks.Budget)
    ui: list[tuple[Any, Any]] = field(default_factory=list)
    panel_events: list[tuple[str, Any]] = field(default_factory=list)
    injections: list[str] = field(default_factory=list)
    narrations: list[str] = field(default_factory=list)
    rewrite: str | None = None
    rolls: list[dict] = field(default_factory=list)
    clock: list[dict] = field(default_factory=list)
    changed: list[dict] = field(default_factory=list)
    problems: list[hooks.Problem] = field(default_factory=list)

    async def fire(self, event: str, payload: dict) -> hooks.Fired:
        """Run the scripts listening to `event` (in a worker thread: a script at its
        time cap holds up only itself), keep their writes and gather the rest."""
        if not any(hooks.listens(script, event) for script in self.scripts):
            return hooks.Fired()
        try:
            if self.view is None:
                self.view = await database_sync_to_async(variables.keeper_view)(self.room_id)
            view = self.view
            fired = await asyncio.to_thread(hooks.fire, self.scripts, event, payload, view, self.budget)
        except Exception:  # a hook never breaks a turn, nor refuses a tool when it cannot run
            log.exception("room=%s the hooks could not run on %s", self.room_id, event)
            return hooks.Fired()
        self.ui += fired.ui
        self.panel_events += fired.panel_events
        self.injections += fired.injections
        self.narrations += fired.narrations
        if event == "reply_ready" and fired.rewrite is not None:
            self.rewrite = fired.rewrite
        self.problems += fired.problems
        if fired.writes:
            await database_sync_to_async(self._write)(fired.writes, event != "variables_changed")
        return fired

    def _write(self, writes: list[tuple[str, Any, str]], record: bool) -> None:
        """Apply the hooks' variable writes as the declared variables allow; a write
        the room does not take is told to the keepers."""
        for var_id, value, source in writes:
            try:
                variables.write_from_hook(self.room_id, var_id, value)
            except Refusal as refused:
                self.problems.append(hooks.Problem(source, "refused", refused.message(self.locale)))
                continue
            if record:
                self.wrote(var_id, "set")

    def wrote(self, var_id: str, op: str) -> None:
        """A variable was written this turn (by a hook or a Keeper tool)."""
        if len(self.changed) < MAX_RECORDED_WRITES:
            self.changed.append({"path": var_id, "op": op})

    def happened(self, events: list[tuple[str, dict]]) -> None:
        """What a Keeper tool did that the hooks hear of (`ToolOutcome.happened`)."""
        for name, detail in events:
            if name == "clock_advanced" and len(self.clock) < MAX_CLOCK_ADVANCES:
                self.clock.append(detail)
            elif name == "variables_changed":
                self.wrote(str(detail.get("path", "")), str(detail.get("op", "set")))

    async def turn_start(self) -> list[str]:
        """`turn_start`: what the hooks injected into this turn's brief."""
        await self.fire("turn_start", {"actor": self.actor, "user_message": self.line})
        return self.injections

    async def tool_use(self, tool: str, arguments: dict) -> str | None:
        """`tool_use`: the result the model reads instead of the tool's, when a hook
        refused the call; None (the tool runs) otherwise, a failed hook included."""
        fired = await self.fire("tool_use", {"tool": tool, "arguments": arguments})
        if fired.deny is None:
            return None
        log.info("room=%s a hook refused the tool %s: %s", self.room_id, tool, fired.deny)
        return (
            f"A hook of this room refused {tool}: {fired.deny}. "
            "Do something else, or tell the players why it cannot be done."
        )

    async def after_reply(self, reply: str) -> str:
        """The reply phases: `dice_rolled`, `clock_advanced`, `reply_ready`, then
        `variables_changed` once; the reply as the hooks left it (rewritten, with what
        they narrated appended)."""
        if self.rolls:
            await self.fire("dice_rolled", {"actor": self.actor, "rolls": self.rolls})
        for advance in self.clock:
            await self.fire("clock_advanced", advance)
        await self.fire("reply_ready", {"actor": self.actor, "reply": reply})
        if self.changed:
            await self.fire("variables_changed", {"writes": list(self.changed)})
        told = self.rewrite if self.rewrite is not None else reply
        if self.narrations:
            told = "\n\n".join(part for part in (told.rstrip(), *self.narrations) if part)
        return told

    def problem_lines(self) -> list[str]:
        """What the keepers are told of the hooks that went wrong this turn."""
        lines = list(dict.fromkeys(problem.text(self.locale) for problem in self.problems))
        if len(lines) > hooks.MAX_PROBLEMS:
            more = len(lines) - hooks.MAX_PROBLEMS + 1
            lines = [*lines[: hooks.MAX_PROBLEMS - 1], say(self.locale, _("… and {n} more."), n=more)]
        return lines

    def emissions(self) -> hooks.Emissions:
        """What the table is to be shown (`keeper.kp.stage.hook_frames`)."""
        return hooks.Emissions(ui=list(self.ui), panel_events=list(self.panel_events))
