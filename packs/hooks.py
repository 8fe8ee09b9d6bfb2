"""Event hooks: the `hooks.js` of a pack on in a room (and the hook scripts a world
card brought to it), run in a QuickJS sandbox at the points of a turn where their
events happen (docs/packs.md, "Event hooks").

A script registers handlers with `on(event, handler)`. The events, and where a Keeper
turn fires them (`keeper/turn_hooks.py`):

- `turn_start` `{actor, user_message}`: before the Keeper thinks; `inject(text)` adds
  a section to this turn's brief;
- `tool_use` `{tool, arguments}`: before each of the Keeper's tool calls;
  `denyTool(reason)` refuses the call, and the model reads the reason as its result;
- `dice_rolled` `{actor, rolls}`, `clock_advanced` `{from, to, delta, minutes}`,
  `reply_ready` `{actor, reply}` (`rewriteReply(text)` replaces the reply) and, once a
  turn when anything wrote a variable, `variables_changed` `{writes: [{path, op}]}`:
  after the Keeper's last round, before the reply's closing frame.

Inside a handler: `getvar`/`setvar`/`incvar`/`decvar` and `variables` on the keepers'
view of the room's variables (a script sees its own writes as it asked for them; the
room keeps them as the declared variable's kind and bounds allow), `narrate(text)`,
`emitUI`, `emitPanel` and `log`. Hooks only ask: what they emitted is collected when
the script ends, then checked, capped per turn (`Budget`) and applied by the server.

The sandbox is a fresh interpreter for each script and each event, so nothing survives
from one event to the next but the variables; it has no host I/O, no network, no
timers, no `require` or `process`. Each script has a memory cap and a time cap per
step (loading, dispatching, collecting), and a stack cap. A script that throws, loops,
recurses or allocates past a cap is stopped; what went wrong is a `Problem` the
room's keepers are told of. The engine releases the GIL while it runs, so a stopped
loop costs one worker thread its time cap, not the server.
"""

from __future__ import annotations

import json
import logging
import re
import string
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import quickjs
from django.conf import settings

from base.i18n import _, say

log = logging.getLogger(__name__)

MAX_SCRIPTS = 16
MAX_SCRIPT_CHARS = 40_000
# Per turn (the reference's caps), and for emitUI/emitPanel per script too, so that
# one flooding script cannot crowd out the others.
MAX_UI_EMISSIONS, MAX_UI_PER_SCRIPT = 8, 8
MAX_UI_CHARS = 64 * 1024
MAX_PANEL_EVENTS, MAX_PANEL_EVENTS_PER_SCRIPT = 20, 10
MAX_PANEL_EVENT_BYTES = 32 * 1024
MAX_INJECTIONS, MAX_INJECT_CHARS = 8, 4_000
MAX_NARRATIONS, MAX_NARRATION_CHARS = 8, 2_000
MAX_REWRITE_CHARS = 4_000
MAX_WRITES = 64
MAX_LOG_LINES = 20
MAX_PROBLEMS = 8  # the lines the keepers are told of in one turn
MAX_PENDING_JOBS = 1000
STACK_BYTES = 256 * 1024
EVENTS = ("turn_start", "dice_rolled", "reply_ready", "variables_changed", "clock_advanced", "tool_use")

# The part of lodash (`_`) that hooks use most, written here: the library itself takes
# QuickJS about 150 ms to load, too slow for an interpreter started at each event. Only
# a script that names `_` gets it; a function not here stops its handler with a
# TypeError, which the keepers are told of.
_LODASH = (Path(__file__).resolve().parent / "hook_lodash.js").read_text(encoding="utf-8")
_USES_LODASH = re.compile(r"(?<![\w$.])_\s*[.(\[]")

# The hook API, defined before the script runs. What the hooks emit stays in a buffer
# of the closure: the engine cannot call back into Python while a time cap is armed,
# and a buffer read once at the end is cheaper anyway.
_PRELUDE = string.Template("""
(() => {
  "use strict";
  const input = JSON.parse(globalThis.__input);
  delete globalThis.__input;
  const caps = input.caps, vars = input.vars;
  const handlers = Object.create(null);
  const out = { ui: [], panel: [], inject: [], narrate: [], rewrite: null, deny: null,
                writes: [], log: [], errors: [], over: [], misplaced: [], dropped: 0 };
  const encode = (value) => JSON.stringify(value === undefined ? null : value);
  const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  const over = (what) => {
    out.dropped++;
    if (!out.over.includes(what)) out.over.push(what);
    return false;
  };
  const only = (what, event) => {
    if (input.event === event) return true;
    if (!out.misplaced.includes(what)) out.misplaced.push(what);
    return false;
  };
  const name = (id) => String(id).replace(/^(variables|stat_data)\\./, "");
  const describe = (error) =>
    error && typeof error === "object" && "message" in error
      ? String(error.name || "Error") + ": " + String(error.message) : String(error);
  globalThis.on = (event, handler) => {
    if (typeof handler !== "function") return;
    const key = String(event);
    (handlers[key] = handlers[key] || []).push(handler);
  };
  globalThis.getvar = (id, options) => {
    const key = name(id);
    const value = own(vars, key) ? vars[key] : undefined;
    if ((value === undefined || value === null) && options && typeof options === "object"
        && "defaults" in options) return options.defaults;
    return value;
  };
  globalThis.setvar = (id, value) => {
    const key = name(id);
    if (out.writes.length >= caps.writes) {
      over("setvar");
      return value;
    }
    out.writes.push(encode([key, value]));
    vars[key] = value;
    return value;
  };
  globalThis.incvar = (id, amount) => {
    let base = Number(getvar(id));
    if (!Number.isFinite(base)) base = 0;
    let delta = amount === undefined ? 1 : Number(amount);
    if (!Number.isFinite(delta)) delta = 1;
    return setvar(id, base + delta);
  };
  globalThis.decvar = (id, amount) => incvar(id, -(amount === undefined ? 1 : Number(amount)));
  globalThis.variables = vars;
  globalThis.stat_data = vars;
  const text = (value) => (typeof value === "string" ? value : String(value));
  globalThis.inject = (value) => {
    if (!only("inject", "turn_start") || !text(value).trim()) return false;
    if (out.inject.length >= caps.inject) return over("inject");
    out.inject.push(text(value).slice(0, ${inject_chars}));
    return true;
  };
  globalThis.narrate = (value) => {
    if (!text(value).trim()) return false;
    if (out.narrate.length >= caps.narrate) return over("narrate");
    out.narrate.push(text(value).slice(0, ${narrate_chars}));
    return true;
  };
  globalThis.rewriteReply = (value) => {
    if (!only("rewriteReply", "reply_ready")) return false;
    out.rewrite = text(value).slice(0, ${rewrite_chars});
    return true;
  };
  globalThis.denyTool = (reason) => {
    if (!only("denyTool", "tool_use")) return false;
    out.deny = (text(reason).trim() || "no reason given").slice(0, ${rewrite_chars});
    return true;
  };
  globalThis.emitUI = (blocks, options) => {
    const encoded = out.ui.length < caps.ui ? encode([blocks, options]) : undefined;
    if (encoded === undefined || encoded.length > ${max_ui_chars}) return over("emitUI");
    out.ui.push(encoded);
    return true;
  };
  globalThis.emitPanel = (panel, payload) => {
    const encoded = out.panel.length < caps.panel ? encode([String(panel), payload]) : undefined;
    if (encoded === undefined || encoded.length > ${max_panel_chars}) return over("emitPanel");
    out.panel.push(encoded);
    return true;
  };
  globalThis.log = (value) => {
    if (out.log.length < ${max_log}) out.log.push(text(value).slice(0, 300));
  };
  globalThis.__dispatch = () => {
    for (const handler of handlers[input.event] || []) {
      try {
        const result = handler(input.payload);
        if (result && typeof result.then === "function") {
          result.then(undefined, (error) => out.errors.push(input.event + ": " + describe(error)));
        }
      } catch (error) {
        out.errors.push(input.event + ": " + describe(error));
      }
    }
  };
  globalThis.__collect = () => JSON.stringify(out);
})();
""").substitute(
    inject_chars=MAX_INJECT_CHARS,
    narrate_chars=MAX_NARRATION_CHARS,
    rewrite_chars=MAX_REWRITE_CHARS,
    max_ui_chars=MAX_UI_CHARS,
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
class Budget:
    """What the hooks may still emit this turn, across every script and event."""

    ui: int = MAX_UI_EMISSIONS
    panel: int = MAX_PANEL_EVENTS
    inject: int = MAX_INJECTIONS
    narrate: int = MAX_NARRATIONS
    writes: int = MAX_WRITES

    def caps(self) -> dict[str, int]:
        """The caps one script runs with: the turn's remainder (for emitUI and
        emitPanel, within what one script may ask for; `fire` shares them out)."""
        return {
            "ui": min(self.ui, MAX_UI_PER_SCRIPT),
            "panel": min(self.panel, MAX_PANEL_EVENTS_PER_SCRIPT),
            "inject": self.inject,
            "narrate": self.narrate,
            "writes": self.writes,
        }


_LIMITS = {
    "setvar": MAX_WRITES,
    "inject": MAX_INJECTIONS,
    "narrate": MAX_NARRATIONS,
    "emitUI": MAX_UI_EMISSIONS,
    "emitPanel": MAX_PANEL_EVENTS,
}
_ONLY_IN = {"inject": "turn_start", "rewriteReply": "reply_ready", "denyTool": "tool_use"}


@dataclass(frozen=True)
class Problem:
    """Something a script did wrong: `kind` is threw (a handler threw or rejected),
    stopped (the script could not load or run: a cap, a syntax error), over (an emitter
    past its cap this turn), misplaced (an emitter called in an event it has no effect
    in) or refused (a variable write the room did not take); `detail` says what."""

    source: str
    kind: str
    detail: str

    def text(self, locale: str) -> str:
        """The line the room's keepers read."""
        if self.kind == "over":
            return say(
                locale,
                _("Hook {source}: {emitter}() went over its limit of {limit} a turn; the rest was dropped."),
                source=self.source,
                emitter=self.detail,
                limit=_LIMITS.get(self.detail, 1),
            )
        if self.kind == "misplaced":
            return say(
                locale,
                _("Hook {source}: {emitter}() does something only in {event}; it was ignored."),
                source=self.source,
                emitter=self.detail,
                event=_ONLY_IN.get(self.detail, "?"),
            )
        if self.kind == "refused":
            return say(
                locale,
                _("Hook {source}: a variable write was refused: {why}"),
                source=self.source,
                why=self.detail,
            )
        return say(locale, _("Hook {source} failed: {error}"), source=self.source, error=self.detail)


@dataclass
class Fired:
    """What one event's hooks asked for, parsed but not yet cleaned: `ui` as `(blocks,
    options)`, `panel_events` as `(panel id, payload)`, `writes` as `(variable id,
    value)` in the order they were asked for."""

    ui: list[tuple[Any, Any]] = field(default_factory=list)
    panel_events: list[tuple[str, Any]] = field(default_factory=list)
    injections: list[str] = field(default_factory=list)
    narrations: list[str] = field(default_factory=list)
    rewrite: str | None = None
    deny: str | None = None
    writes: list[tuple[str, Any, str]] = field(default_factory=list)  # (id, value, script source)
    problems: list[Problem] = field(default_factory=list)
    dropped: int = 0


@dataclass
class Emissions:
    """What a turn's hooks asked the table to be shown (`run`), within the caps."""

    ui: list[tuple[Any, Any]] = field(default_factory=list)
    panel_events: list[tuple[str, Any]] = field(default_factory=list)
    dropped: int = 0
    stopped: list[str] = field(default_factory=list)  # the scripts a cap or an error stopped
    problems: list[Problem] = field(default_factory=list)


def _limits() -> tuple[int, float]:
    return settings.TRPG_HOOKS_MEMORY_MB * 1024 * 1024, settings.TRPG_HOOKS_TIME_LIMIT


def _sandbox() -> quickjs.Context:
    memory, seconds = _limits()
    context = quickjs.Context()
    context.set_memory_limit(memory)
    context.set_time_limit(seconds)
    context.set_max_stack_size(STACK_BYTES)
    return context


def _collect(script: Script, input_json: str) -> dict:
    """Run one script on one event in a fresh sandbox; its buffer of emissions."""
    context = _sandbox()
    try:
        context.set("__input", input_json)
        context.eval(_PRELUDE)
        if _USES_LODASH.search(script.code):
            context.eval(_LODASH)
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


def _texts(values: Any, limit: int, chars: int) -> list[str]:
    return [
        str(value)[:chars] for value in (values or [])[:limit] if isinstance(value, str) and value.strip()
    ]


def listens(script: Script, event: str) -> bool:
    """Whether `script` may handle `event`: its text names it. A script that never
    names an event is not started for it, so a room pays for a hook only at the
    events it listens to (`tool_use` comes before every tool call)."""
    return event in script.code


def fire(scripts: list[Script], event: str, payload: dict, view: dict[str, Any], budget: Budget) -> Fired:
    """Run the room's scripts that listen to `event` on `payload`, each seeing the
    variables `view` (the keepers' view, updated here with the writes they ask for, so
    a later script and a later event see them); what they asked for, within what is
    left of the turn's `budget`. Never raises for anything a script does."""
    fired, shown = Fired(), []
    if event not in EVENTS:
        return fired
    for script in scripts[:MAX_SCRIPTS]:
        if not listens(script, event):
            continue
        if len(script.code) > MAX_SCRIPT_CHARS:
            log.warning("hook %s is longer than %s characters: skipped", script.source, MAX_SCRIPT_CHARS)
            fired.problems.append(
                Problem(script.source, "stopped", f"longer than {MAX_SCRIPT_CHARS} characters")
            )
            continue
        caps = budget.caps()
        input_json = json.dumps({"event": event, "payload": payload, "vars": view, "caps": caps})
        try:
            out = _collect(script, input_json)
        except Exception as stopped:  # quickjs.JSException, StackOverflow, out of memory, the time cap
            reason = (str(stopped).splitlines() or [stopped.__class__.__name__])[0][:200]
            log.warning("hook %s stopped: %s", script.source, reason)
            fired.problems.append(Problem(script.source, "stopped", reason))
            continue
        shown.append(_take(script, out, fired, view, budget))
    # emitUI and emitPanel share the turn's remainder in turns, one emission of each
    # script at a time, so that a flooding script cannot crowd the others out.
    for kind, kept in (("ui", fired.ui), ("panel", fired.panel_events)):
        queues = [list(script_shown[kind]) for script_shown in shown]
        while getattr(budget, kind) > 0 and any(queues):
            for queue in queues:
                if queue and getattr(budget, kind) > 0:
                    kept.append(queue.pop(0))
                    setattr(budget, kind, getattr(budget, kind) - 1)
        fired.dropped += sum(len(queue) for queue in queues)
    return fired


def _take(script: Script, out: dict, fired: Fired, view: dict[str, Any], budget: Budget) -> dict[str, list]:
    """Fold one script's buffer into `fired`, spending the turn's `budget`; what it
    asked the table to be shown, to be shared out by `fire`."""
    for line in out.get("log", [])[:MAX_LOG_LINES]:
        log.warning("hook %s: %s", script.source, str(line)[:300])
    for error in _texts(out.get("errors"), MAX_PROBLEMS, 300):
        log.warning("hook %s: %s", script.source, error)
        fired.problems.append(Problem(script.source, "threw", error))
    for kind in ("over", "misplaced"):
        for emitter in _texts(out.get(kind), 8, 20):
            fired.problems.append(Problem(script.source, kind, emitter))
    fired.dropped += int(out.get("dropped") or 0)
    injections = _texts(out.get("inject"), budget.inject, MAX_INJECT_CHARS)
    narrations = _texts(out.get("narrate"), budget.narrate, MAX_NARRATION_CHARS)
    budget.inject -= len(injections)
    budget.narrate -= len(narrations)
    fired.injections += injections
    fired.narrations += narrations
    if isinstance(out.get("rewrite"), str):
        fired.rewrite = out["rewrite"][:MAX_REWRITE_CHARS]  # the last one asked for stands
    if isinstance(out.get("deny"), str) and out["deny"].strip() and fired.deny is None:
        fired.deny = out["deny"][:MAX_REWRITE_CHARS]
    for text in (out.get("writes") or [])[: budget.writes]:
        parsed, value = _parse(text, MAX_UI_CHARS)
        if parsed and isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and value[0]:
            fired.writes.append((value[0][:64], value[1], script.source))
            view[value[0][:64]] = value[1]
            budget.writes -= 1
    shown: dict[str, list] = {"ui": [], "panel": []}
    for text in (out.get("ui") or [])[:MAX_UI_PER_SCRIPT]:
        parsed, value = _parse(text, MAX_UI_CHARS)
        if parsed and isinstance(value, list) and len(value) == 2:
            shown["ui"].append((value[0], value[1]))
        else:
            fired.dropped += 1
    for text in (out.get("panel") or [])[:MAX_PANEL_EVENTS_PER_SCRIPT]:
        parsed, value = _parse(text, MAX_PANEL_EVENT_BYTES + 64)
        payload_size = len(json.dumps(value[1]).encode("utf-8")) if parsed else 0
        if parsed and isinstance(value, list) and payload_size <= MAX_PANEL_EVENT_BYTES:
            shown["panel"].append((script.panel_id(str(value[0])[:200]), value[1]))
        else:
            fired.dropped += 1
    return shown


def run(scripts: list[Script], events: list[tuple[str, dict]], variables: dict[str, Any]) -> Emissions:
    """Run the room's hook scripts on `events` in order, within one turn's budget, over
    the variables `variables`; what they asked the table to be shown. Writes, texts and
    refusals are left to the caller that fires events one by one (`fire`)."""
    emissions, budget, view = Emissions(), Budget(), dict(variables)
    for name, payload in events:
        fired = fire(scripts, name, payload, view, budget)
        emissions.ui += fired.ui
        emissions.panel_events += fired.panel_events
        emissions.dropped += fired.dropped
        emissions.problems += fired.problems
        emissions.stopped += [p.source for p in fired.problems if p.kind == "stopped"]
    if emissions.dropped:
        log.warning("hooks: %s emissions over the caps were dropped", emissions.dropped)
    return emissions
