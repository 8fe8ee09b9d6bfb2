"""A panel's template blocks made into the blocks one viewer sees, and those as text.

Every client draws a tier-1 panel by resolving its template (`packs/panels.py`) against
its own viewer's `state.variables`; the server does the same for `.panel <id>`, the
text a client without panels reads. The rules are the shared conformance table's
(`packs/tests/fixtures/panel_template_vectors.json`, license beside it), which the
browser table's `static/table/templates.js` also runs:

- a variable flagged `hidden` (an imported card's leaf the keeper has not exposed) is
  read as absent by everything below, for every viewer;
- `{$var: id}` reads the first variable of that id; one this viewer does not have
  drops the whole block when the field is required, only the field when it is
  optional (an image's caption, a letter's sender, a choice's prompt);
- `visible_when` hides its block when false or when it cannot be evaluated;
- `repeat` makes one block per variable whose id starts with the prefix, at most
  `MAX_REPEAT` of them, `{$leaf: id|label|value}` reading that variable;
- texts are picked in the viewer's language, then English, then any; numbers and
  booleans written into a text read as JavaScript writes them (`3`, `true`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from base.i18n import _, say
from packs import conditions

MAX_REPEAT = 32
LEAVES = ("id", "label", "value")
TONES = ("info", "warn", "danger")
# The kinds that are a few texts (required, optional); a map pin also has a picture and x, y.
TEXT_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "letter": (("body",), ("from", "to", "date")),
    "clipping": (("headline", "body"), ("source", "date")),
    "title_card": (("title",), ("subtitle", "act")),
    "map_pin": (("label",), ("note",)),
}


class _Missing:
    """A binding this viewer cannot read."""


MISSING = _Missing()


def js_text(value: Any) -> str:
    """A number or a boolean as a browser writes it into text: `3.0` is `3`, `True` is `true`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def pick(value: Any, locale: str) -> str | None:
    """A text in the viewer's language, else English, else any; a plain string as it is
    (empty included); the first non-empty string of a list (an array variable). None
    when there is nothing to show, which hides a block that needs it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return next((item for item in value if isinstance(item, str) and item), None)
    if not isinstance(value, Mapping):
        return None
    for candidate in (value.get(locale[:2]), value.get("en"), *value.values()):
        if isinstance(candidate, str) and candidate:
            return candidate
    return None


class _Viewer:
    """One viewer's readable variables and language, and the rules that read them."""

    def __init__(self, variables: Sequence[Mapping[str, Any]] | None, locale: str) -> None:
        self.variables = [v for v in variables or () if isinstance(v, Mapping) and not v.get("hidden")]
        self.locale = locale or "en"
        self.values: dict[str, Any] = {}
        for entry in self.variables:
            self.values.setdefault(str(entry.get("id")), entry.get("value"))

    def shows(self, block: Mapping[str, Any]) -> bool:
        if "visible_when" not in block:
            return True
        condition = block["visible_when"]
        return isinstance(condition, str) and conditions.visible(condition, self.values)

    def scalar(self, value: Any, leaf: Mapping[str, Any] | None) -> Any:
        # A mapping holding `$var` is a binding, whatever else it holds (the browser
        # tests `"$var" in value` too); `$var` wins over `$leaf`.
        if isinstance(value, Mapping) and "$var" in value:
            name = value["$var"]
            if isinstance(name, str):
                for entry in self.variables:
                    if entry.get("id") == name:
                        return entry.get("value")
            return MISSING
        if isinstance(value, Mapping) and "$leaf" in value:
            if leaf is None or value["$leaf"] not in LEAVES:
                return MISSING
            return leaf.get(value["$leaf"])
        return value

    def text(self, value: Any, leaf: Mapping[str, Any] | None) -> str | None:
        resolved = self.scalar(value, leaf)
        if resolved is MISSING:
            return None
        if isinstance(resolved, bool | int | float):
            return js_text(resolved)
        return pick(resolved, self.locale)

    def number(self, value: Any, leaf: Mapping[str, Any] | None) -> int | float | None:
        resolved = self.scalar(value, leaf)
        if isinstance(resolved, bool) or not isinstance(resolved, int | float):
            return None
        return resolved if math.isfinite(resolved) else None

    def block(self, block: Any, leaf: Mapping[str, Any] | None = None) -> dict | None:
        """One template block as drawn, or None when this viewer sees nothing of it."""
        if not isinstance(block, Mapping) or "repeat" in block or not self.shows(block):
            return None
        kind = block.get("kind")
        if kind == "divider":
            return {"kind": "divider"}
        if kind == "meter":
            label = self.text(block.get("label"), leaf)
            value, low, high = (self.number(block.get(name), leaf) for name in ("value", "min", "max"))
            if label is None or value is None or low is None or high is None or high <= low:
                return None
            return {"kind": "meter", "label": label, "value": value, "min": low, "max": high}
        if kind == "stat":
            return self._stat(block, leaf)
        if kind == "badge":
            label = self.text(block.get("label"), leaf)
            if label is None:
                return None
            badge = {"kind": "badge", "label": label}
            tone = self.scalar(block.get("tone"), leaf)
            if isinstance(tone, str) and tone in TONES:  # a tone it cannot draw goes, the badge stays
                badge["tone"] = tone
            return badge
        if kind == "text":
            text = self.text(block.get("text"), leaf)
            if text is None:
                return None
            return {"kind": "text", "text": text, **({"style": block["style"]} if "style" in block else {})}
        if kind == "image":
            return self._image(block, leaf)
        if kind in TEXT_KINDS:
            return self._texts(block, str(kind), leaf)
        if kind == "choices":
            return self._choices(block, leaf)
        return None  # a kind this server does not know draws as nothing

    def _stat(self, block: Mapping[str, Any], leaf: Mapping[str, Any] | None) -> dict | None:
        label = self.text(block.get("label"), leaf)
        value = self.scalar(block.get("value"), leaf)
        if label is None or value is MISSING:
            return None
        if isinstance(value, bool | int | float):  # a stat keeps its number or boolean
            return {"kind": "stat", "label": label, "value": value}
        text = pick(value, self.locale)
        return None if text is None else {"kind": "stat", "label": label, "value": text}

    def _image(self, block: Mapping[str, Any], leaf: Mapping[str, Any] | None) -> dict | None:
        picture = block.get("hash")
        if not isinstance(picture, str) or not picture:
            return None
        image = {"kind": "image", "hash": picture, **_media(block)}
        for name in ("caption", "alt"):
            text = self.text(block.get(name), leaf)
            if text is not None:
                image[name] = text
        return image

    def _texts(self, block: Mapping[str, Any], kind: str, leaf: Mapping[str, Any] | None) -> dict | None:
        required, optional = TEXT_KINDS[kind]
        drawn: dict[str, Any] = {"kind": kind}
        for name in required + optional:
            text = self.text(block.get(name), leaf)
            if text is None and name in required:
                return None
            if text is not None:
                drawn[name] = text
        if kind == "map_pin":
            picture = block.get("hash")
            x, y = self.number(block.get("x"), leaf), self.number(block.get("y"), leaf)
            if not isinstance(picture, str) or not picture or x is None or y is None:
                return None
            # x and y are fractions of the map: a pin outside it sits on its edge.
            drawn.update(hash=picture, **_media(block), x=min(1, max(0, x)), y=min(1, max(0, y)))
        return drawn

    def _choices(self, block: Mapping[str, Any], leaf: Mapping[str, Any] | None) -> dict | None:
        options = []
        for option in block.get("options") or ():
            if not isinstance(option, Mapping):
                continue
            label = self.text(option.get("label"), leaf)
            if (
                label is not None
                and isinstance(option.get("id"), str)
                and isinstance(option.get("input"), str)
            ):
                options.append({"id": option["id"], "label": label, "input": option["input"]})
        if not options:
            return None
        prompt = self.text(block["prompt"], leaf) if "prompt" in block else None
        return {"kind": "choices", **({"prompt": prompt} if prompt is not None else {}), "options": options}


def _media(block: Mapping[str, Any]) -> dict:
    return {name: block[name] for name in ("mime", "size") if name in block}


def resolve_blocks(
    blocks: Sequence[Any] | None, variables: Sequence[Mapping[str, Any]] | None, locale: str
) -> list[dict]:
    """A panel's template blocks (as `ui_manifest` carries them) as one viewer sees
    them: bindings read, gates decided, repeats made. Empty when nothing shows."""
    viewer = _Viewer(variables, locale)
    drawn: list[dict] = []
    for block in blocks or ():
        if isinstance(block, Mapping) and "repeat" in block:
            spec = block["repeat"]
            if not viewer.shows(block) or not isinstance(spec, Mapping):
                continue  # a repeat's own gate hides the whole list
            prefix, inner = spec.get("prefix"), spec.get("block")
            if (
                not isinstance(prefix, str)
                or not prefix
                or not isinstance(inner, Mapping)
                or "repeat" in inner
            ):
                continue  # an empty prefix would match everything; repeats do not nest
            # Matched first, then capped: a match deep in a long card import still counts.
            matches = [v for v in viewer.variables if str(v.get("id", "")).startswith(prefix)]
            drawn += [b for match in matches[:MAX_REPEAT] if (b := viewer.block(inner, match)) is not None]
            continue
        one = viewer.block(block)
        if one is not None:
            drawn.append(one)
    return drawn


def _joined(*parts: Any) -> str:
    return " · ".join(str(part) for part in parts if part)


def block_lines(block: Mapping[str, Any], locale: str) -> list[str]:
    """One resolved block as lines of text, the few words of its own in `locale`."""
    kind = block["kind"]
    if kind == "divider":
        return ["———"]
    if kind == "meter":
        return [f"{block['label']}: {js_text(block['value'])}/{js_text(block['max'])}"]
    if kind == "stat":
        return [f"{block['label']}: {js_text(block['value'])}"]
    if kind == "badge":
        return [f"[{block['label']}]"]
    if kind == "text":
        return [block["text"]]
    if kind == "image":
        return [
            say(
                locale, _("(picture) {caption}"), caption=block.get("caption") or block.get("alt") or ""
            ).rstrip()
        ]
    if kind == "choices":
        head = [block["prompt"]] if block.get("prompt") else []
        return head + [f"  > {option['label']}: {option['input']}" for option in block["options"]]
    if kind == "letter":
        head = _joined(block.get("date"), block.get("to"))
        return (
            ([head] if head else []) + [block["body"]] + ([f"— {block['from']}"] if block.get("from") else [])
        )
    if kind == "clipping":
        source = _joined(block.get("source"), block.get("date"))
        return [block["headline"] + (f" ({source})" if source else ""), block["body"]]
    if kind == "title_card":
        return [f"== {_joined(block.get('act'), block['title'], block.get('subtitle'))} =="]
    if kind == "map_pin":
        return [
            say(locale, _("(map) {label}"), label=block["label"])
            + (f": {block['note']}" if block.get("note") else "")
        ]
    return []


def panel_text(
    blocks: Sequence[Any] | None, variables: Sequence[Mapping[str, Any]] | None, locale: str
) -> list[str]:
    """A panel's blocks as the lines one viewer reads (empty when nothing shows)."""
    return [
        line
        for block in resolve_blocks(blocks, variables, locale)
        for line in block_lines(block, locale)
        if line
    ]
