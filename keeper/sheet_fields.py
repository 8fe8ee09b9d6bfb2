"""A character's sheet as form rows in the operator console: its values (attributes,
skills, vitals) as name and value rows, its items as rows of their parts, its status
effects a line each, and its owner picked by the member's name. The operator edits
what the table shows, never JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from keeper import inventory
from rooms.models import AccessKey

# Blank rows under the filled ones, to add to a sheet in one save.
BLANK_ROWS = 3
WHOLE_NUMBER = re.compile(r"[+-]?\d{1,9}")


def _value(text: str) -> int | str:
    """A sheet value as the table keeps it: a whole number, else the text typed."""
    text = text.strip()
    return int(text) if WHOLE_NUMBER.fullmatch(text) else text


class ValueRows(forms.Widget):
    """Name and value rows; posts `<name>-<i>-key` and `<name>-<i>-value`."""

    class Media:
        css = {"all": ["keeper/sheet_rows.css"]}

    def render(self, name: str, value: object, attrs: dict | None = None, renderer: object = None) -> str:
        pairs = list(value.items()) if isinstance(value, Mapping) else list(value or [])
        pairs += [("", "")] * BLANK_ROWS
        rows = format_html_join(
            "",
            "<tr><td><input type='text' name='{0}-{1}-key' value='{2}' aria-label='{4}'></td>"
            "<td><input type='text' name='{0}-{1}-value' value='{3}' aria-label='{5}'></td></tr>",
            (
                (name, i, key, "" if val is None else val, _("name"), _("value"))
                for i, (key, val) in enumerate(pairs)
            ),
        )
        return format_html(
            "<table class='sheet-rows' id='id_{}'><thead><tr><th>{}</th><th>{}</th></tr></thead>"
            "<tbody>{}</tbody></table><input type='hidden' name='{}-rows' value='{}'>",
            name,
            _("name"),
            _("value"),
            rows,
            name,
            len(pairs),
        )

    def value_from_datadict(self, data: Mapping, files: object, name: str) -> list[tuple[str, str]]:
        rows = _row_count(data, name)
        posted = [(data.get(f"{name}-{i}-key", ""), data.get(f"{name}-{i}-value", "")) for i in range(rows)]
        return [(key.strip(), val.strip()) for key, val in posted if key.strip() or val.strip()]

    def value_omitted_from_data(self, data: Mapping, files: object, name: str) -> bool:
        return f"{name}-rows" not in data


class ValueRowsField(forms.Field):
    """A sheet's table of values (`{name: value}`), edited as rows; a row with a
    value and no name is refused, a row with neither is dropped."""

    widget = ValueRows

    def __init__(self, **kwargs: object) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value: object) -> dict:
        if isinstance(value, Mapping):
            return dict(value)
        table: dict = {}
        for key, val in value or []:
            if not key:
                raise forms.ValidationError(_("Every row with a value needs a name."))
            table[key] = _value(str(val))
        return table


def _row_count(data: Mapping, name: str) -> int:
    counted = str(data.get(f"{name}-rows", "0"))
    return min(int(counted), inventory.MAX_ITEMS + BLANK_ROWS) if counted.isdigit() else 0


ITEM_PARTS = ("name", "kind", "quantity", "equipped", "description")


class ItemRows(forms.Widget):
    """An item a row (name, kind, how many, equipped, description); posts
    `<name>-<i>-<part>`."""

    class Media:
        css = {"all": ["keeper/sheet_rows.css"]}

    def render(self, name: str, value: object, attrs: dict | None = None, renderer: object = None) -> str:
        items = [item for item in value or [] if isinstance(item, Mapping)]
        items += [{}] * BLANK_ROWS
        kinds = [(kind, inventory.KIND_LABELS[kind]) for kind in inventory.KINDS]

        def row(i: int, item: Mapping) -> str:
            chosen = str(item.get("kind") or "misc")
            options = format_html_join(
                "",
                "<option value='{}'{}>{}</option>",
                ((kind, " selected" if kind == chosen else "", label) for kind, label in kinds),
            )
            return format_html(
                "<tr><td><input type='text' name='{0}-{1}-name' value='{2}' maxlength='64'"
                " aria-label='{7}'></td>"
                "<td><select name='{0}-{1}-kind' aria-label='{8}'>{3}</select></td>"
                "<td><input type='number' name='{0}-{1}-quantity' value='{4}' min='0' max='{11}'"
                " aria-label='{9}'></td>"
                "<td><input type='checkbox' name='{0}-{1}-equipped'{5} aria-label='{10}'></td>"
                "<td><input type='text' name='{0}-{1}-description' value='{6}' maxlength='300'"
                " aria-label='{12}'></td></tr>",
                name,
                i,
                item.get("name", ""),
                options,
                item.get("quantity", 1) if item else "",
                " checked" if item.get("equipped") else "",
                item.get("description", ""),
                _("name"),
                _("kind"),
                _("how many"),
                _("equipped"),
                inventory.MAX_QUANTITY,
                _("description"),
            )

        heads = format_html_join(
            "",
            "<th>{}</th>",
            ((label,) for label in (_("name"), _("kind"), _("how many"), _("equipped"), _("description"))),
        )
        return format_html(
            "<table class='sheet-rows items' id='id_{}'><thead><tr>{}</tr></thead><tbody>{}</tbody></table>"
            "<input type='hidden' name='{}-rows' value='{}'>",
            name,
            heads,
            format_html_join("", "{}", ((row(i, item),) for i, item in enumerate(items))),
            name,
            len(items),
        )

    def value_from_datadict(self, data: Mapping, files: object, name: str) -> list[dict]:
        posted = [
            {part: data.get(f"{name}-{i}-{part}", "") for part in ITEM_PARTS}
            for i in range(_row_count(data, name))
        ]
        # A blank row (its kind and quantity are always filled in) is no item.
        return [
            {**item, "equipped": bool(item["equipped"])}
            for item in posted
            if str(item["name"]).strip() or str(item["description"]).strip() or item["equipped"]
        ]

    def value_omitted_from_data(self, data: Mapping, files: object, name: str) -> bool:
        return f"{name}-rows" not in data


class ItemRowsField(forms.Field):
    """What a character carries, an item a row, each saved in the one shape the table
    reads (`keeper.inventory.clean_item`); an item without a name is refused."""

    widget = ItemRows

    def __init__(self, **kwargs: object) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value: object) -> list[dict]:
        cleaned = [inventory.clean_item(item) for item in value or [] if isinstance(item, Mapping)]
        if any(not item["name"] for item in cleaned):
            raise forms.ValidationError(_("Every item needs a name."))
        return cleaned


class LinesField(forms.CharField):
    """A list of short texts (status effects), a line each."""

    widget = forms.Textarea(attrs={"rows": 3})

    def __init__(self, **kwargs: object) -> None:
        super().__init__(required=False, **kwargs)

    def prepare_value(self, value: object) -> str:
        return "\n".join(str(line) for line in value) if isinstance(value, list) else str(value or "")

    def to_python(self, value: object) -> list[str]:
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]


def owner_choices(room_id: int | None, owner: str) -> list[tuple[str, str]]:
    """Who may own a character, by name: the members holding keys to the room (to any
    room while none is chosen), and the owner it has should their key be gone."""
    keys = AccessKey.objects.select_related("room").order_by("room__name", "name")
    if room_id is not None:
        keys = keys.filter(room_id=room_id)
    choices: dict[str, str] = {"": str(_("nobody (a pregenerated character to claim)"))}
    for key in keys:
        label = key.name if room_id is not None else f"{key.name} · {key.room.name}"
        choices.setdefault(key.member_id, f"{label} ({key.role})")
    if owner and owner not in choices:
        choices[owner] = str(_("%(member)s (holds no key now)") % {"member": owner})
    return list(choices.items())


def owner_name(room_id: int, owner: str) -> str:
    """The member's name for a character's owner (the member id when no key names it)."""
    if not owner:
        return ""
    key = AccessKey.objects.filter(room_id=room_id, member_id=owner).values_list("name", flat=True).first()
    return key or owner


def holds_a_key(room_id: int, member_id: str) -> bool:
    """Whether the member holds a key to the room (a new owner must)."""
    return AccessKey.objects.filter(room_id=room_id, member_id=member_id).exists()
