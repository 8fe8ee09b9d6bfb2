"""Frames the game produces, and their per-viewer form.

A dice frame is broadcast once and recorded once, with every label in both languages
(`{"en": ..., "zh": ...}`); `for_viewer` picks the viewer's language just before the
frame is written, live or replayed (checklist 75: the label arrives localized).
"""

from __future__ import annotations

from keeper.rules.outcome import Outcome


def outcome_wire(outcome: Outcome) -> dict:
    """An outcome with both labels, to be localized per viewer."""
    wire = outcome.as_wire("en")
    wire["label"] = {"en": wire["label"], "zh": outcome.as_wire("zh")["label"]}
    return wire


def _pick(label: object, locale: str) -> object:
    if isinstance(label, dict):
        return label.get(locale) or label.get("en", "")
    return label


def for_viewer(frame: dict, locale: str) -> dict:
    """`frame` as one viewer receives it: every label in the viewer's language."""
    if frame.get("type") != "dice":
        return frame
    frame = dict(frame)
    if "outcome" in frame:
        frame["outcome"] = {**frame["outcome"], "label": _pick(frame["outcome"]["label"], locale)}
    detail = frame.get("detail")
    if isinstance(detail, dict) and ("left" in detail or "right" in detail):
        detail = dict(detail)
        for side in ("left", "right"):
            if isinstance(detail.get(side), dict) and "outcome" in detail[side]:
                outcome = detail[side]["outcome"]
                detail[side] = {
                    **detail[side],
                    "outcome": {**outcome, "label": _pick(outcome["label"], locale)},
                }
        frame["detail"] = detail
    return frame
