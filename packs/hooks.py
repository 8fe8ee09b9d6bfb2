"""Event hooks: the `hooks.js` of a pack on in a room (and the hook scripts a world
card brought to it) run after each turn, in a QuickJS sandbox.

A script registers handlers with `on(event, handler)`:

- `turn_start`: `{actor, user_message}`, the line that started the turn;
- `dice_rolled`: `{actor, rolls: [{actor, kind, expr, total, outcome?, ...}]}`, the
  turn's public dice frames;
- `reply_ready`: `{actor, reply}`, the Keeper's narration (or the command's answer).

A pack's scripts are its files named `hooks.js` (a skill folder's, say). `emitPanel`
names a panel by its wire id (`<pack id>/<panel id>`), or, in a pack's script, by the
pack's own panel id.

Inside a handler, `getvar(id)` reads the room's player-visible variables (a hidden one
reads as undefined), `emitUI(blocks, {panel, id, replace})` asks for a `ui` frame,
`emitPanel(panelId, payload)` for a `panel_event`, and `log(text)` writes a line to the
server's log. Hooks only ask: what they emitted is collected when the script ends,
then cleaned (`packs/ui_blocks.py`) and capped by the server before any client sees it.

The sandbox is a fresh interpreter for each script and turn, so nothing survives
between turns or rooms; it has no host I/O, no network, no timers, no `require` or
`process`. Each script has a memory cap and a time cap per step (loading, dispatching,
collecting), and a stack cap. A script that throws, loops, recurses or allocates past a
cap is stopped and logged; the turn completes without what it would have emitted.
The engine releases the GIL while it runs, so a stopped loop costs one worker thread
its time cap, not the server.
"""

from __future__ import annotations

import json
import logging
import string
import time
from dataclasses import dataclass, field
from typing import Any

import quickjs
from django.conf import settings

log = logging.getLogger(__name__)

MAX_SCRIPTS = 16
MAX_SCRIPT_CHARS = 40_000
# Per turn, and per script so that one flooding script cannot crowd out the others.
MAX_UI_EMISSIONS, MAX_UI_PER_SCRIPT = 16, 8
MAX_UI_CHARS = 64 * 1024
MAX_PANEL_EVENTS, MAX_PANEL_EVENTS_PER_SCRIPT = 20, 10
MAX_PANEL_EVENT_BYTES = 32 * 1024
MAX_LOG_LINES = 20
MAX_PENDING_JOBS = 1000
STACK_BYTES = 256 * 1024
EVENTS = ("turn_start", "dice_rolled", "reply_ready")

# The hook API, defined before the script runs. What the hooks emit stays in a buffer
# of the closure: the engine cannot call back into Python while a time cap is armed,
# and a buffer read once at the end is cheaper anyway.
_PRELUDE = string.Template("""
(() => {
  "use strict";
  const handlers = Object.create(null);
  const out = { ui: [], panel: [], log: [], dropped: 0 };
  const events = JSON.parse(globalThis.__events_json);
  const vars = JSON.parse(globalThis.__vars_json);
  delete globalThis.__events_json;
  delete globalThis.__vars_json;
  const encode = (value) => JSON.stringify(value === undefined ? null : value);
  globalThis.on = (name, handler) => {
    if (typeof name === "string" && typeof handler === "function") {
      (handlers[name] = handlers[name] || []).push(handler);
    }
  };
  globalThis.getvar = (id) =>
    Object.prototype.hasOwnProperty.call(vars, id) ? vars[id] : undefined;
  globalThis.emitUI = (blocks, options) => {
    const text = out.ui.length < ${max_ui} ? encode([blocks, options]) : undefined;
    if (text === undefined || text.length > ${max_ui_chars}) { out.dropped++; return false; }
    out.ui.push(text);
    return true;
  };
  globalThis.emitPanel = (panel, payload) => {
    const text = out.panel.length < ${max_panel} ? encode([String(panel), payload]) : undefined;
    if (text === undefined || text.length > ${max_panel_chars}) { out.dropped++; return false; }
    out.panel.push(text);
    return true;
  };
  const note = (text) => {
    if (out.log.length < ${max_log}) out.log.push(String(text).slice(0, 300));
  };
  globalThis.log = note;
  globalThis.__dispatch = () => {
    for (const [name, event] of events) {
      for (const handler of handlers[name] || []) {
        try {
          const result = handler(event);
          if (result && typeof result.then === "function") {
            result.then(undefined, (error) => note(name + " rejected: " + String(error)));
          }
        } catch (error) {
          note(name + " threw: " + String(error));
        }
      }
    }
  };
  globalThis.__collect = () => JSON.stringify(out);
})();
""").substitute(
    max_ui=MAX_UI_PER_SCRIPT,
    max_ui_chars=MAX_UI_CHARS,
    max_panel=MAX_PANEL_EVENTS_PER_SCRIPT,
    max_panel_chars=MAX_PANEL_EVENT_BYTES + 64,
    max_log=MAX_LOG_LINES,
)


@dataclass(frozen=True)
class Script:
    """One hook script, where it came from (for the log) and the pack it is part of
    (its `emitPanel` may name the pack's panels by their own ids)."""

    source: str
    code: str
    pack: str = ""

    def panel_id(self, named: str) -> str:
        """The wire id (`<pack id>/<panel id>`) of the panel the script named."""
        return named if "/" in named or not self.pack else f"{self.pack}/{named}"


@dataclass
class Emissions:
    """What a turn's hooks asked for, parsed but not yet cleaned: `ui` as `(blocks,
    options)`, `panel_events` as `(panel id, payload)`."""

    ui: list[tuple[Any, Any]] = field(default_factory=list)
    panel_events: list[tuple[str, Any]] = field(default_factory=list)
    dropped: int = 0
    stopped: list[str] = field(default_factory=list)  # the scripts a cap or an error stopped


def _limits() -> tuple[int, float]:
    return settings.TRPG_HOOKS_MEMORY_MB * 1024 * 1024, settings.TRPG_HOOKS_TIME_LIMIT


def _sandbox() -> quickjs.Context:
    memory, seconds = _limits()
    context = quickjs.Context()
    context.set_memory_limit(memory)
    context.set_time_limit(seconds)
    context.set_max_stack_size(STACK_BYTES)
    return context


def _collect(script: Script, events_json: str, vars_json: str) -> dict:
    """Run one script in a fresh sandbox; its buffer of emissions."""
    context = _sandbox()
    try:
        context.set("__events_json", events_json)
        context.set("__vars_json", vars_json)
        context.eval(_PRELUDE)
        context.eval(script.code)
        context.eval("__dispatch()")
        deadline = time.monotonic() + _limits()[1]
        for _job in range(MAX_PENDING_JOBS):  # async handlers, within the same time cap
            if time.monotonic() > deadline or not context.execute_pending_job():
                break
        collected = context.eval("__collect()")
        return json.loads(collected) if isinstance(collected, str) else {}
    finally:
        del context  # the interpreter and all it allocated go with it


def _parse(text: Any, limit: int) -> tuple[bool, Any]:
    if not isinstance(text, str) or len(text.encode("utf-8")) > limit:
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def run(scripts: list[Script], events: list[tuple[str, dict]], variables: dict[str, Any]) -> Emissions:
    """Run the room's hook scripts on this turn's `events` (in order), seeing the
    player-visible `variables`; what they emitted, within the caps. Never raises for
    anything a script does."""
    emissions = Emissions()
    if not scripts:
        return emissions
    events_json = json.dumps([[name, event] for name, event in events if name in EVENTS])
    vars_json = json.dumps(variables)
    for script in scripts[:MAX_SCRIPTS]:
        if len(script.code) > MAX_SCRIPT_CHARS:
            log.warning("hook %s is longer than %s characters: skipped", script.source, MAX_SCRIPT_CHARS)
            emissions.stopped.append(script.source)
            continue
        try:
            out = _collect(script, events_json, vars_json)
        except Exception as stopped:  # quickjs.JSException, StackOverflow, out of memory, the time cap
            log.warning("hook %s stopped: %s", script.source, str(stopped).splitlines()[0][:200])
            emissions.stopped.append(script.source)
            continue
        for line in out.get("log", [])[:MAX_LOG_LINES]:
            log.warning("hook %s: %s", script.source, str(line)[:300])
        emissions.dropped += int(out.get("dropped") or 0)
        for text in out.get("ui", []):
            parsed, value = _parse(text, MAX_UI_CHARS)
            if parsed and isinstance(value, list) and len(value) == 2:
                emissions.ui.append((value[0], value[1]))
            else:
                emissions.dropped += 1
        for text in out.get("panel", []):
            parsed, value = _parse(text, MAX_PANEL_EVENT_BYTES + 64)
            payload_size = len(json.dumps(value[1]).encode("utf-8")) if parsed else 0
            if parsed and isinstance(value, list) and payload_size <= MAX_PANEL_EVENT_BYTES:
                emissions.panel_events.append((script.panel_id(str(value[0])[:200]), value[1]))
            else:
                emissions.dropped += 1
    # The caps hold for the turn, whatever number of scripts share it.
    emissions.dropped += max(0, len(emissions.ui) - MAX_UI_EMISSIONS)
    emissions.dropped += max(0, len(emissions.panel_events) - MAX_PANEL_EVENTS)
    del emissions.ui[MAX_UI_EMISSIONS:], emissions.panel_events[MAX_PANEL_EVENTS:]
    if emissions.dropped:
        log.warning("hooks: %s emissions over the caps were dropped", emissions.dropped)
    return emissions
