"""Module variables: typed values a module or a pack declares for a room (a day counter,
a clue found, the cult's alertness; the declaration format is `packs.declarations`),
read by panels (`{$var: id}`, `visible_when`) and changed by the keeper (`.var`) as
the story moves. Players see only the exposed variables; keepers see all. Bounds
always hold: `.var set` refuses a value outside them, `.var add` stops at them.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from base.i18n import _
from keeper.models import ModuleVariable
from packs.declarations import VariableError, check_declaration, valid_value

MAX_VARIABLES = 256
# The ids an imported card's MVU leaves take (`keeper/import_commands.py`).
CARD_LEAF_PREFIX = "mvu."
_TRUE = ("true", "yes", "on", "1", "是")
_FALSE = ("false", "no", "off", "0", "否")


def parse(variable: ModuleVariable, text: str) -> Any:
    """What the keeper typed, read as a value of `variable`'s kind."""
    text = text.strip()
    if variable.kind == "number":
        try:
            return int(text)
        except ValueError:
            raise VariableError(_("{id} takes a whole number."), id=variable.var_id) from None
    if variable.kind == "bool":
        lowered = text.lower()
        if lowered in _TRUE or lowered in _FALSE:
            return lowered in _TRUE
        raise VariableError(_("{id} takes true or false."), id=variable.var_id)
    return text


def declare(room_id: int, specs: list, *, source: str = "") -> list[ModuleVariable]:
    """Declare the variables `specs` in the room, all or none: one already there keeps
    its value (a pack turned on again does not start its day counter over)."""
    checked = [check_declaration(spec) for spec in specs]
    with transaction.atomic():
        existing = set(ModuleVariable.objects.filter(room_id=room_id).values_list("var_id", flat=True))
        if len(existing | {d.var_id for d in checked}) > MAX_VARIABLES:
            raise VariableError(_("A room has at most {limit} variables."), limit=MAX_VARIABLES)
        return [
            ModuleVariable.objects.create(
                room_id=room_id,
                var_id=d.var_id,
                label=d.label,
                kind=d.kind,
                value=d.initial,
                initial=d.initial,
                minimum=d.minimum,
                maximum=d.maximum,
                choices=d.choices,
                exposed=d.exposed,
                source=source[:80],
            )
            for d in checked
            if d.var_id not in existing
        ]


def set_value(room_id: int, var_id: str, value: Any) -> tuple[ModuleVariable, Any]:
    """Set a variable (an unknown id becomes a keeper-only variable of the value's
    kind); returns it and its old value."""
    with transaction.atomic():
        found = ModuleVariable.objects.select_for_update().filter(room_id=room_id, var_id=var_id).first()
        if found is None:
            kind = "bool" if isinstance(value, bool) else "number" if isinstance(value, int) else "text"
            (created,) = declare(room_id, [{"id": var_id, "kind": kind, "value": value}], source="keeper")
            return created, None
        old, found.value = found.value, valid_value(found, value)
        found.save(update_fields=["value"])
        return found, old


def add(room_id: int, var_id: str, delta: int) -> tuple[ModuleVariable, int, bool]:
    """Add `delta` to a number variable, stopping at its bounds; returns it, its old
    value and whether a bound stopped it."""
    with transaction.atomic():
        found = ModuleVariable.objects.select_for_update().filter(room_id=room_id, var_id=var_id).first()
        if found is None:
            raise VariableError(_("There is no variable {id} in this room."), id=var_id[:80])
        if found.kind != "number":
            raise VariableError(_("Only a number variable can be added to ({id})."), id=var_id)
        old = found.value
        wanted = old + delta
        value = max(found.minimum, wanted) if found.minimum is not None else wanted
        value = min(found.maximum, value) if found.maximum is not None else value
        found.value = value
        found.save(update_fields=["value"])
        return found, old, value != wanted


def write_from_hook(room_id: int, var_id: str, value: Any) -> tuple[ModuleVariable, Any]:
    """A hook's `setvar`, as the reference takes one: a number variable takes a whole
    number (or text or a float that is one) and keeps it within its bounds (clamped,
    where `.var set` refuses); a bool takes true/false (or yes/no, on/off, 1/0), an enum
    one of its options in any case, a text variable text; an id the room does not have
    becomes a keeper-only variable. Returns it and its old value;
    VariableError when the value does not fit."""
    with transaction.atomic():
        found = ModuleVariable.objects.select_for_update().filter(room_id=room_id, var_id=var_id).first()
        if found is None:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, (bool, int, str)):
                raise VariableError(_("{id} takes a whole number, true or false, or text."), id=var_id[:80])
            return set_value(room_id, var_id, value)
        if found.kind == "number":
            number = _whole(value)
            if number is None:
                raise VariableError(_("{id} takes a whole number."), id=var_id)
            if found.minimum is not None:
                number = max(found.minimum, number)
            if found.maximum is not None:
                number = min(found.maximum, number)
            value = number
        elif found.kind == "bool" and not isinstance(value, bool):
            word = str(value).strip().lower()
            value = word in _TRUE if word in _TRUE or word in _FALSE else value
        elif found.kind == "enum" and isinstance(value, str):  # an option in any case
            value = next((c for c in found.choices if c.lower() == value.strip().lower()), value)
        old, found.value = found.value, valid_value(found, value)
        found.save(update_fields=["value"])
        return found, old


def _whole(value: Any) -> int | None:
    """`value` as a whole number, if it is one (7, 7.0, "7")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return value if isinstance(value, int) else None


def keeper_view(room_id: int) -> dict[str, Any]:
    """Every variable of the room by id, hidden ones too: what the keepers (and the
    room's hooks) see."""
    return dict(ModuleVariable.objects.filter(room_id=room_id).order_by("id").values_list("var_id", "value"))


def set_exposed(room_id: int, prefix: str, exposed: bool) -> int:
    """Expose (or hide) the variables whose id starts with `prefix` (`*`: all); how
    many changed."""
    matching = ModuleVariable.objects.filter(room_id=room_id).exclude(exposed=exposed)
    if prefix != "*":
        matching = matching.filter(var_id__startswith=prefix)
    return matching.update(exposed=exposed)


def entries(room_id: int) -> list[dict]:
    """The room's variables in definition order, as `state` reads them (all of them,
    with `exposed`; `keeper.state` keeps each viewer's share)."""
    return [
        {
            "id": v.var_id,
            "label": v.label,
            "kind": v.kind,
            "value": v.value,
            "exposed": v.exposed,
            **({"min": v.minimum} if v.minimum is not None else {}),
            **({"max": v.maximum} if v.maximum is not None else {}),
        }
        for v in ModuleVariable.objects.filter(room_id=room_id).order_by("id")
    ]


def for_viewer(variables: list[dict], *, is_keeper: bool, locale: str) -> list[dict]:
    """The `state.variables` of one viewer, labels in the viewer's language: a player
    gets the exposed ones only; a keeper all of them. On a keeper's connection an
    unexposed variable is flagged by what it is: an imported card's leaf (`mvu.`) the
    keeper has not exposed is `hidden` (panels read it as absent, as the protocol has
    every client do), any other (a pack's or module's keeper-only tracker, one the
    keeper set) is `keeper_only`, which panels read like any variable of the viewer's,
    so the keeper's panels draw it (docs/packs.md, "Module variables")."""
    shown = []
    for entry in variables:
        if not entry["exposed"] and not is_keeper:
            continue
        row = {key: value for key, value in entry.items() if key != "exposed"}
        row["label"] = entry["label"].get(locale) or entry["label"].get("en") or entry["id"]
        if not entry["exposed"]:
            row["hidden" if entry["id"].startswith(CARD_LEAF_PREFIX) else "keeper_only"] = True
        shown.append(row)
    return shown


def find(room_id: int, var_id: str) -> ModuleVariable | None:
    """The room's variable `var_id`, if it has one."""
    return ModuleVariable.objects.filter(room_id=room_id, var_id=var_id).first()


def guess(text: str) -> Any:
    """A value typed for a new variable: a whole number, true/false, else text."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text
