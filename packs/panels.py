"""A pack's panels (`ui/panels.yaml`): checked when the pack is built and again when it
is installed, and turned into the panels of a room's `ui_manifest`.

```yaml
panels:
  - id: clue-board            # unique in the pack; on the wire "<packId>/clue-board"
    title: {en: Clue board, zh: 线索板}
    slot: sidebar              # sidebar | tray | modal
    audience: all              # all | keeper | player (never on the wire)
    blocks:                    # tier 1: template blocks
      - {kind: stat, label: {en: Day, zh: 天数}, value: {$var: day}}
      - {kind: text, text: The tide turns., visible_when: "day >= 3"}
      - repeat: {prefix: clue., block: {kind: badge, label: {$leaf: label}}}
      - {kind: image, src: assets/map.png, caption: The harbour}
  - id: survey                 # tier 2: a small static web page, with fallback blocks
    title: Survey
    slot: modal
    entry: ui/survey/index.html
    assets: [ui/survey/index.html, ui/survey/app.js]
    fallback: [{kind: text, text: Open in the rich client.}]   # or null
```

Template blocks are the `ui` frame's blocks; any scalar may be `{$var: id}`; a
`repeat` renders one block per visible variable under a prefix, with `{$leaf: id |
label | value}` inside; `visible_when` (packs/conditions.py) may gate any block. An
`image` or `map_pin` names a picture of the pack by its path (`src`); the build
replaces it with the picture's `{hash, mime, size}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from base.i18n import Refusal, _
from packs import conditions

MAX_PANELS = 16
MAX_BLOCKS = 32
MAX_CHOICES = 12
MAX_TIER2_ASSETS = 9  # the entry and eight more
PANEL_ID_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")
SLOTS = ("sidebar", "tray", "modal")
AUDIENCES = ("all", "keeper", "player")
IMAGE_MIMES = ("image/png", "image/jpeg", "image/webp", "image/gif", "image/svg+xml")
PAGE_SUFFIXES = (".html", ".htm")

# Each block kind's fields, and the longest text each may hold (None: not text).
_TEXT, _NUMBER, _SCALAR, _CHOICE = 300, "number", "scalar", "choice"
BLOCK_FIELDS: dict[str, dict[str, Any]] = {
    "meter": {"label": 120, "value": _NUMBER, "min": _NUMBER, "max": _NUMBER},
    "stat": {"label": 120, "value": _SCALAR},
    "badge": {"label": 120, "tone": ("info", "warn", "danger")},
    "text": {"text": 2000, "style": ("quote", "warning")},
    "divider": {},
    "choices": {"prompt": 200, "options": _CHOICE},
    "image": {"src": "src", "caption": 300, "alt": 300},
    "letter": {"body": 4000, "from": 120, "to": 120, "date": 120},
    "clipping": {"headline": 200, "body": 4000, "source": 120, "date": 120},
    "map_pin": {"src": "src", "label": 120, "x": _NUMBER, "y": _NUMBER, "note": 300},
    "title_card": {"title": 200, "subtitle": 200, "act": 120},
}
REQUIRED = {
    "meter": ("label", "value", "min", "max"),
    "stat": ("label", "value"),
    "badge": ("label",),
    "text": ("text",),
    "choices": ("options",),
    "image": ("src",),
    "letter": ("body",),
    "clipping": ("headline", "body"),
    "map_pin": ("src", "label", "x", "y"),
    "title_card": ("title",),
}
LEAVES = ("id", "label", "value")


class PanelError(Refusal):
    """A panel the build or the install refuses, naming where and why."""


def _where(panel: str, path: str) -> str:
    return f"{panel}: {path}" if path else panel


def _localized(value: Any, where: str, limit: int) -> dict[str, str] | str:
    if isinstance(value, str):
        if len(value) > limit:
            raise PanelError(_("{where} is longer than {limit} characters."), where=where, limit=limit)
        return value
    if isinstance(value, dict) and value and set(value) <= {"en", "zh"}:
        for text in value.values():
            if not isinstance(text, str) or len(text) > limit:
                raise PanelError(
                    _("{where} must be text of at most {limit} characters in each language."),
                    where=where,
                    limit=limit,
                )
        return dict(value)
    raise PanelError(_("{where} must be text, or {{en, zh}} texts."), where=where)


class _Blocks:
    """Checks template blocks and resolves their pictures (`src` → hash)."""

    def __init__(self, panel: str, picture: Callable[[str, str], dict]) -> None:
        self.panel = panel
        self.picture = picture  # (path, where) -> {"hash", "mime", "size"}

    def blocks(self, blocks: Any, where: str) -> list[dict]:
        if not isinstance(blocks, list) or not 1 <= len(blocks) <= MAX_BLOCKS:
            raise PanelError(
                _("{where} must be a list of 1 to {limit} blocks."), where=where, limit=MAX_BLOCKS
            )
        return [self.block(block, f"{where}[{n}]", in_repeat=False) for n, block in enumerate(blocks)]

    def block(self, block: Any, where: str, *, in_repeat: bool) -> dict:
        if not isinstance(block, dict):
            raise PanelError(_("{where} must be a block."), where=_where(self.panel, where))
        gate = block.get("visible_when")
        if gate is not None:
            try:
                conditions.check(gate)
            except conditions.ConditionError as problem:
                raise PanelError(
                    _("{where}: the condition {condition} is refused: {reason}"),
                    where=_where(self.panel, where),
                    condition=repr(gate)[:120],
                    reason=str(problem),
                ) from None
        if "repeat" in block:
            return self.repeat(block, where, in_repeat=in_repeat)
        kind = block.get("kind")
        if kind not in BLOCK_FIELDS:
            raise PanelError(
                _("{where}: unknown block kind {kind}."),
                where=_where(self.panel, where),
                kind=repr(kind)[:40],
            )
        fields = BLOCK_FIELDS[kind]
        unknown = set(block) - set(fields) - {"kind", "visible_when"}
        if unknown:
            raise PanelError(
                _("{where}: unknown fields {fields}."),
                where=_where(self.panel, where),
                fields=", ".join(sorted(map(str, unknown)))[:120],
            )
        for name in REQUIRED.get(kind, ()):
            if name not in block:
                raise PanelError(
                    _("{where}: {field} is missing."), where=_where(self.panel, where), field=name
                )
        resolved: dict = {"kind": kind}
        if gate is not None:
            resolved["visible_when"] = gate
        for name, value in block.items():
            if name in ("kind", "visible_when"):
                continue
            resolved.update(self.field(kind, name, fields[name], value, f"{where}.{name}", in_repeat))
        return resolved

    def repeat(self, block: dict, where: str, *, in_repeat: bool) -> dict:
        spec = block["repeat"]
        if in_repeat:
            raise PanelError(_("{where}: a repeat cannot hold another."), where=_where(self.panel, where))
        if (
            set(block) - {"repeat", "visible_when"}
            or not isinstance(spec, dict)
            or set(spec) != {"prefix", "block"}
        ):
            raise PanelError(
                _("{where}: a repeat is {{repeat: {{prefix, block}}}}."), where=_where(self.panel, where)
            )
        prefix = spec["prefix"]
        if not isinstance(prefix, str) or not 0 < len(prefix) <= 120:
            raise PanelError(_("{where}: the repeat's prefix must be text."), where=_where(self.panel, where))
        inner = self.block(spec["block"], f"{where}.repeat.block", in_repeat=True)
        resolved: dict = {"repeat": {"prefix": prefix, "block": inner}}
        if "visible_when" in block:
            resolved["visible_when"] = block["visible_when"]
        return resolved

    def binding(self, value: Any, where: str, in_repeat: bool) -> dict | None:
        if not isinstance(value, dict) or len(value) != 1:
            return None
        ((key, target),) = value.items()
        if key == "$var" and isinstance(target, str) and 0 < len(target) <= 120:
            return {"$var": target}
        if key == "$leaf" and target in LEAVES:
            if not in_repeat:
                raise PanelError(
                    _("{where}: $leaf belongs inside a repeat."), where=_where(self.panel, where)
                )
            return {"$leaf": target}
        return None

    def field(self, kind: str, name: str, rule: Any, value: Any, where: str, in_repeat: bool) -> dict:
        if rule == "src":
            if not isinstance(value, str):
                raise PanelError(
                    _("{where} must be the path of a picture in the pack."), where=_where(self.panel, where)
                )
            return self.picture(value, _where(self.panel, where))
        if rule == _CHOICE:
            return {name: self.options(value, where, in_repeat)}
        bound = self.binding(value, where, in_repeat)
        if bound is not None:
            return {name: bound}
        if isinstance(rule, tuple):
            if value not in rule:
                raise PanelError(
                    _("{where} must be one of {choices}."),
                    where=_where(self.panel, where),
                    choices=", ".join(rule),
                )
            return {name: value}
        if rule == _NUMBER:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PanelError(_("{where} must be a number."), where=_where(self.panel, where))
            return {name: value}
        if rule == _SCALAR:
            if isinstance(value, str | dict):
                return {name: _localized(value, _where(self.panel, where), _TEXT)}
            if not isinstance(value, bool | int | float):
                raise PanelError(
                    _("{where} must be a number, text or yes/no."), where=_where(self.panel, where)
                )
            return {name: value}
        return {name: _localized(value, _where(self.panel, where), rule)}

    def options(self, options: Any, where: str, in_repeat: bool) -> list[dict]:
        if not isinstance(options, list) or not 1 <= len(options) <= MAX_CHOICES:
            raise PanelError(
                _("{where} must list 1 to {limit} options."),
                where=_where(self.panel, where),
                limit=MAX_CHOICES,
            )
        checked = []
        for n, option in enumerate(options):
            at = f"{where}[{n}]"
            if not isinstance(option, dict) or set(option) != {"id", "label", "input"}:
                raise PanelError(
                    _("{where}: an option is {{id, label, input}}."), where=_where(self.panel, at)
                )
            if (
                not isinstance(option["id"], str)
                or not isinstance(option["input"], str)
                or len(option["input"]) > 500
            ):
                raise PanelError(
                    _("{where}: an option's id and input must be text."), where=_where(self.panel, at)
                )
            checked.append(
                {
                    "id": option["id"][:64],
                    "label": _localized(option["label"], _where(self.panel, at + ".label"), 120),
                    "input": option["input"],
                }
            )
        return checked


def check_panels(
    document: Any,
    *,
    name: str,
    picture: Callable[[str, str], dict],
    page: Callable[[str, str], dict],
) -> list[dict]:
    """The panels of `document` (the file `name`), checked and resolved: pictures by
    `picture(path, where)` and tier-2 files by `page(path, where)`, each giving `{hash,
    mime, size}` or refusing. Each panel keeps its `audience`; `manifest_for` drops it."""
    if not isinstance(document, dict) or set(document) != {"panels"}:
        raise PanelError(_("{name} must be {{panels: [...]}}."), name=name)
    panels = document["panels"]
    if not isinstance(panels, list) or not 1 <= len(panels) <= MAX_PANELS:
        raise PanelError(_("{name} must list 1 to {limit} panels."), name=name, limit=MAX_PANELS)
    resolved, seen = [], set()
    for n, panel in enumerate(panels):
        checked = _panel(panel, f"{name} panels[{n}]", picture, page)
        if checked["id"] in seen:
            raise PanelError(_("Two panels are called {panel}."), panel=checked["id"])
        seen.add(checked["id"])
        resolved.append(checked)
    return resolved


_PANEL_FIELDS = {"id", "title", "slot", "audience", "blocks", "entry", "assets", "fallback"}


def _panel(panel: Any, where: str, picture: Callable, page: Callable) -> dict:
    if not isinstance(panel, dict):
        raise PanelError(_("{where} must be a panel."), where=where)
    panel_id = panel.get("id")
    if not isinstance(panel_id, str) or not 0 < len(panel_id) <= 64 or not set(panel_id) <= PANEL_ID_CHARS:
        raise PanelError(_("{where}: a panel id is lowercase letters, digits and dashes."), where=where)
    unknown = set(panel) - _PANEL_FIELDS
    if unknown:
        raise PanelError(
            _("{where}: unknown fields {fields}."),
            where=panel_id,
            fields=", ".join(sorted(map(str, unknown)))[:120],
        )
    if panel.get("slot") not in SLOTS:
        raise PanelError(
            _("{where}: slot must be one of {choices}."), where=panel_id, choices=", ".join(SLOTS)
        )
    audience = panel.get("audience", "all")
    if audience not in AUDIENCES:
        raise PanelError(
            _("{where}: audience must be one of {choices}."), where=panel_id, choices=", ".join(AUDIENCES)
        )
    resolved = {
        "id": panel_id,
        "title": _localized(panel.get("title"), f"{panel_id}: title", 120),
        "slot": panel["slot"],
        "audience": audience,
    }
    blocks = _Blocks(panel_id, picture)
    if "entry" not in panel:
        if "assets" in panel or "fallback" in panel:
            raise PanelError(
                _("{where}: assets and fallback belong to a panel with an entry page."), where=panel_id
            )
        resolved.update(tier=1, blocks=blocks.blocks(panel.get("blocks"), "blocks"))
        return resolved
    if "blocks" in panel:
        raise PanelError(
            _("{where}: a panel with an entry page has fallback blocks, not blocks."), where=panel_id
        )
    entry = panel["entry"]
    if not isinstance(entry, str) or not entry.lower().endswith(PAGE_SUFFIXES):
        raise PanelError(_("{where}: the entry must be an .html file of the pack."), where=panel_id)
    root = entry.rpartition("/")[0]
    files = panel.get("assets", [entry])
    if not isinstance(files, list) or entry not in files or len(files) > MAX_TIER2_ASSETS:
        raise PanelError(
            _("{where}: assets must list the entry and at most {limit} more files."),
            where=panel_id,
            limit=MAX_TIER2_ASSETS - 1,
        )
    assets = []
    for path in files:
        if not isinstance(path, str) or (root and not path.startswith(root + "/")):
            raise PanelError(
                _("{where}: {path} is not beside the entry page."), where=panel_id, path=str(path)[:120]
            )
        assets.append({"path": path[len(root) + 1 :] if root else path, **page(path, panel_id)})
    if "fallback" not in panel:
        raise PanelError(
            _("{where}: a panel with an entry page needs fallback blocks, or null."), where=panel_id
        )
    fallback = panel["fallback"]
    entry_file = page(entry, panel_id)
    resolved.update(
        tier=2,
        entry={"hash": entry_file["hash"], "size": entry_file["size"]},
        assets=assets,
        fallback=None if fallback is None else blocks.blocks(fallback, "fallback"),
    )
    return resolved


def manifest_for(panels: list[dict], *, pack_id: str, is_keeper: bool) -> list[dict]:
    """The panels a viewer may have, as `ui_manifest` carries them: ids under the pack,
    no audience (it was decided here)."""
    shown = []
    for panel in panels:
        audience = panel.get("audience", "all")
        if audience == "all" or (audience == "keeper") == is_keeper:
            wire = {key: value for key, value in panel.items() if key != "audience"}
            wire["id"] = f"{pack_id}/{panel['id']}"
            shown.append(wire)
    return shown


def hashes_in(panels: list[dict]) -> frozenset[str]:
    """Every file hash a viewer's panels name (pictures, web pages and their files):
    what that viewer may fetch of the room's packs."""
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("hash"), str):
                found.add(node["hash"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(panels)
    return frozenset(found)
