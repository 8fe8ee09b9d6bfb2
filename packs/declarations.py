"""Module variable declarations: the format a pack (`variables:` in pack.yaml) or a
module declares a room's variables in, checked when a pack is built and again when it
is installed; the game keeps the values (`keeper.variables`).

A declaration is `{id, label, kind, value, min, max, choices, audience}`: `kind` is
`number` (a whole number, optionally bounded by `min`/`max`), `bool`, `text` (at most
200 characters) or `enum` (one of `choices`); `value` is where it starts; `audience`
is `everyone` (players see it) or `keepers` (the default, until the keeper exposes
it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from base.i18n import Refusal, _

MAX_DECLARED = 64  # per pack

MAX_TEXT = 200
ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
KINDS = ("number", "bool", "text", "enum")
FIELDS = {"id", "label", "kind", "value", "min", "max", "choices", "audience"}


class VariableError(Refusal):
    """A variable the server will not declare or change as asked."""


def check_id(var_id: Any) -> str:
    """`var_id` if it is a variable id (letters of any script, digits, `_ . -`)."""
    if (
        not isinstance(var_id, str)
        or not 0 < len(var_id) <= 120
        or not all(char in ID_CHARS or char.isalpha() for char in var_id)
        or var_id.startswith(".")
        or var_id.endswith(".")
    ):
        raise VariableError(_("{id} is not a variable id (letters, digits, _ . -)."), id=repr(var_id)[:80])
    return var_id


@dataclass(frozen=True)
class Declared:
    """A variable as a module or pack declares it (see `check_declaration`)."""

    var_id: str
    label: dict
    kind: str
    initial: Any
    minimum: int | None
    maximum: int | None
    choices: list[str]
    exposed: bool


def _label(value: Any, var_id: str) -> dict:
    if value is None:
        return {"en": var_id}
    if isinstance(value, str) and 0 < len(value) <= 120:
        return {"en": value}
    if (
        isinstance(value, dict)
        and value
        and set(value) <= {"en", "zh"}
        and all(isinstance(text, str) and 0 < len(text) <= 120 for text in value.values())
    ):
        return dict(value)
    raise VariableError(_("The label of {id} must be short text, or {{en, zh}} texts."), id=var_id)


def check_declaration(spec: Any) -> Declared:
    """A declaration `{id, label, kind, value, min, max, choices, audience}` checked:
    `audience` is `everyone` (exposed) or `keepers` (the default)."""
    if not isinstance(spec, dict) or set(spec) - {
        "id",
        "label",
        "kind",
        "value",
        "min",
        "max",
        "choices",
        "audience",
    }:
        raise VariableError(_("A variable is {{id, label, kind, value, min, max, choices, audience}}."))
    var_id = check_id(spec.get("id"))
    kind = spec.get("kind", "number")
    if kind not in KINDS:
        raise VariableError(_("The kind of {id} must be one of {kinds}."), id=var_id, kinds=", ".join(KINDS))
    minimum, maximum = spec.get("min"), spec.get("max")
    for bound in (minimum, maximum):
        if bound is not None and (kind != "number" or isinstance(bound, bool) or not isinstance(bound, int)):
            raise VariableError(_("Only a number variable has whole-number bounds ({id})."), id=var_id)
    if minimum is not None and maximum is not None and minimum > maximum:
        raise VariableError(_("The bounds of {id} are the wrong way round."), id=var_id)
    choices = spec.get("choices", [])
    if kind == "enum" and (
        not isinstance(choices, list)
        or not 0 < len(choices) <= 32
        or not all(isinstance(c, str) and 0 < len(c) <= 60 for c in choices)
    ):
        raise VariableError(_("The enum {id} needs a list of choices."), id=var_id)
    audience = spec.get("audience", "keepers")
    if audience not in ("everyone", "keepers"):
        raise VariableError(_("The audience of {id} is everyone or keepers."), id=var_id)
    default = {"number": minimum or 0, "bool": False, "text": "", "enum": choices[0] if choices else ""}[kind]
    declared = Declared(
        var_id=var_id,
        label=_label(spec.get("label"), var_id),
        kind=kind,
        initial=None,
        minimum=minimum,
        maximum=maximum,
        choices=list(choices) if kind == "enum" else [],
        exposed=audience == "everyone",
    )
    initial = spec.get("value", default)
    return Declared(**{**declared.__dict__, "initial": valid_value(declared, initial)})


def valid_value(variable: Any, value: Any) -> Any:
    """`value` as a value of `variable`'s kind within its bounds, or refused
    (`variable`: a `Declared`, or anything with the same fields)."""
    var_id = variable.var_id
    kind = variable.kind
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int):
            raise VariableError(_("{id} takes a whole number."), id=var_id)
        low, high = variable.minimum, variable.maximum
        if (low is not None and value < low) or (high is not None and value > high):
            raise VariableError(
                _("{id} must stay between {low} and {high}."),
                id=var_id,
                low="-∞" if low is None else low,
                high="∞" if high is None else high,
            )
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise VariableError(_("{id} takes true or false."), id=var_id)
        return value
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise VariableError(_("{id} takes text of at most {limit} characters."), id=var_id, limit=MAX_TEXT)
    if kind == "enum" and value not in variable.choices:
        raise VariableError(
            _("{id} takes one of: {choices}."), id=var_id, choices=", ".join(variable.choices)
        )
    return value


def as_spec(declared: Declared) -> dict:
    """A checked declaration back as the plain mapping it was written as."""
    spec: dict = {
        "id": declared.var_id,
        "label": declared.label,
        "kind": declared.kind,
        "value": declared.initial,
        "audience": "everyone" if declared.exposed else "keepers",
    }
    if declared.minimum is not None:
        spec["min"] = declared.minimum
    if declared.maximum is not None:
        spec["max"] = declared.maximum
    if declared.choices:
        spec["choices"] = declared.choices
    return spec
