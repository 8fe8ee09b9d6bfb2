"""`.var`: the keeper's module variables (keeper only, answered privately): list them,
set or add to one, expose to players or hide by id prefix (see `keeper.variables`)."""

from __future__ import annotations

from base.i18n import Refusal, _
from keeper import variables
from keeper.commands import Caller, CommandReply, command
from packs import declarations


@command(
    "var",
    "vars",
    keeper_only=True,
    help=_(
        "module variables: .var list, .var set <id> <value>, .var add <id> <n>, .var expose|hide <prefix|*>"
    ),
)
def var(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word = word.lower()
    try:
        if word in ("", "list", "ls"):
            return _list(caller)
        if word == "set":
            return _set(rest, caller)
        if word == "add":
            return _add(rest, caller)
        if word in ("expose", "hide"):
            prefix = rest.strip()
            if not prefix:
                return CommandReply(
                    caller.say(_("Name an id prefix, or * for all: .var {word} <prefix>."), word=word)
                )
            changed = variables.set_exposed(caller.room_id, prefix, word == "expose")
            text = (
                _("Players now see {n} more variables.")
                if word == "expose"
                else _("{n} variables hidden again.")
            )
            return CommandReply(caller.say(text, n=changed))
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(_("Use .var list, .var set <id> <value>, .var add <id> <n>, .var expose|hide <prefix>."))
    )


def _list(caller: Caller) -> CommandReply:
    entries = variables.entries(caller.room_id)
    if not entries:
        return CommandReply(caller.say(_("This room has no module variables.")))
    lines = [caller.say(_("Module variables (players see those marked *):"))]
    for entry in entries:
        bounds = ""
        if "min" in entry or "max" in entry:
            bounds = f" [{entry.get('min', '')}..{entry.get('max', '')}]"
        label = entry["label"].get(caller.locale) or entry["label"].get("en", "")
        mark = "*" if entry["exposed"] else " "
        lines.append(f" {mark} {entry['id']} = {entry['value']!r}{bounds} · {label}")
    return CommandReply("\n".join(lines))


def _set(rest: str, caller: Caller) -> CommandReply:
    var_id, _sep, typed = rest.strip().partition(" ")
    if not var_id or not typed.strip():
        return CommandReply(caller.say(_("Use .var set <id> <value>.")))
    declarations.check_id(var_id)
    found = variables.find(caller.room_id, var_id)
    value = variables.parse(found, typed) if found else variables.guess(typed)
    variable, old = variables.set_value(caller.room_id, var_id, value)
    if found is None:
        return CommandReply(
            caller.say(_("New keeper-only variable {id} = {value}."), id=var_id, value=repr(variable.value))
        )
    return CommandReply(
        caller.say(_("{id}: {old} → {new}."), id=var_id, old=repr(old), new=repr(variable.value))
    )


def _add(rest: str, caller: Caller) -> CommandReply:
    var_id, _sep, typed = rest.strip().partition(" ")
    try:
        delta = int(typed.strip())
    except ValueError:
        return CommandReply(caller.say(_("Use .var add <id> <whole number>.")))
    variable, old, stopped = variables.add(caller.room_id, var_id, delta)
    text = caller.say(_("{id}: {old} → {new}."), id=var_id, old=old, new=variable.value)
    if stopped:
        text += " " + caller.say(_("(stopped at its bound)"))
    return CommandReply(text)
