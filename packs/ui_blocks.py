"""The blocks of a `ui` frame, as the server sends them: whatever a hook or the Stage
Director asked for, cut down to the protocol's block shapes before any client sees it.

Unlike a pack's panels (refused at build when anything is wrong), a frame's blocks are
cleaned leniently: a block that fails its shape is dropped and the rest of the
emission survives, over-long text is cut to its cap, fields the protocol does not name
are left out. An `image` or `map_pin` must name a picture this room can reach (its
own media or a picture of a pack on in it); the caller looks the hashes up
(`hashes_named`) and passes what it found, with the authoritative type and size, so
an unreachable hash never reaches a frame.
"""

from __future__ import annotations

import math
from typing import Any

from packs.panels import BLOCK_FIELDS, MAX_CHOICES, REQUIRED

MAX_BLOCKS = 16
PANELS = ("inline", "sidebar")
_PICTURE_KINDS = ("image", "map_pin")
_ID_CHARS = 64
_OPTION_CAPS = {"id": _ID_CHARS, "label": 120, "input": 200}


def _text(value: Any, cap: int) -> str | None:
    if not isinstance(value, str):
        return None
    cleaned = "".join(ch for ch in value if ch in "\n\t" or ch >= " ")
    return cleaned[:cap]


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _options(value: Any) -> list[dict] | None:
    if not isinstance(value, list) or not value:
        return None
    options = []
    for option in value[:MAX_CHOICES]:
        if not isinstance(option, dict):
            return None
        cleaned = {name: _text(option.get(name), cap) for name, cap in _OPTION_CAPS.items()}
        if any(not text for text in cleaned.values()):
            return None
        options.append(cleaned)
    return options


def _field(rule: Any, value: Any) -> Any:
    """`value` as the field's rule admits it, or None."""
    if isinstance(rule, int):
        return _text(value, rule)
    if isinstance(rule, tuple):
        return value if value in rule else None
    if rule == "number":
        return _number(value)
    if rule == "scalar":
        if isinstance(value, bool):
            return value
        return _number(value) if not isinstance(value, str) else _text(value, 300)
    if rule == "choice":
        return _options(value)
    return None


def hashes_named(blocks: Any) -> set[str]:
    """The picture hashes the (uncleaned) blocks name."""
    if not isinstance(blocks, list):
        return set()
    return {
        block["hash"]
        for block in blocks[:MAX_BLOCKS]
        if isinstance(block, dict)
        and block.get("kind") in _PICTURE_KINDS
        and isinstance(block.get("hash"), str)
    }


def clean_block(block: Any, pictures: dict[str, dict]) -> dict | None:
    """One block as the protocol shapes it, or None when it cannot be one.
    `pictures`: the reachable hashes, each with its `{mime, size}`."""
    if not isinstance(block, dict) or block.get("kind") not in BLOCK_FIELDS:
        return None
    kind = block["kind"]
    cleaned: dict[str, Any] = {"kind": kind}
    for name, rule in BLOCK_FIELDS[kind].items():
        if rule == "src":  # a panel names a file of its pack; a frame names a hash
            picture = pictures.get(block.get("hash")) if isinstance(block.get("hash"), str) else None
            if picture is None:
                return None
            cleaned.update(hash=block["hash"], mime=picture["mime"], size=picture["size"])
            continue
        if name not in block:
            continue
        value = _field(rule, block[name])
        if value is None or value == "":
            if name in REQUIRED.get(kind, ()):
                return None
            continue
        cleaned[name] = value
    if any(name not in cleaned for name in REQUIRED.get(kind, ()) if name != "src"):
        return None
    if kind == "map_pin" and not (0 <= cleaned["x"] <= 1 and 0 <= cleaned["y"] <= 1):
        return None  # fractions of the map's own box
    if kind == "meter" and not cleaned["min"] <= cleaned["max"]:
        return None
    return cleaned


def clean_blocks(blocks: Any, pictures: dict[str, dict]) -> tuple[list[dict], int]:
    """The blocks that survive cleaning (at most `MAX_BLOCKS`), and how many were dropped."""
    if not isinstance(blocks, list):
        return [], 1
    kept = [cleaned for block in blocks[:MAX_BLOCKS] if (cleaned := clean_block(block, pictures))]
    return kept, len(blocks) - len(kept)


def ui_options(options: Any) -> dict:
    """The frame fields of an emission's options: `panel` (inline unless sidebar), an
    `id` naming the region, and `replace`."""
    options = options if isinstance(options, dict) else {}
    fields: dict[str, Any] = {"panel": options.get("panel") if options.get("panel") in PANELS else "inline"}
    region = _text(options.get("id"), _ID_CHARS)
    if region:
        fields["id"] = region
    if options.get("replace") is True:
        fields["replace"] = True
    return fields
