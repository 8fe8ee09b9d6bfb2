"""A rules outcome as a dice frame carries it: with its label in both languages
(`{"en": ..., "zh": ...}`), so a frame recorded once can be shown to every viewer in
their own (`base.frames.for_viewer`)."""

from __future__ import annotations

from keeper.rules.outcome import Outcome


def outcome_wire(outcome: Outcome) -> dict:
    """An outcome with both labels, to be localized per viewer."""
    wire = outcome.as_wire("en")
    wire["label"] = {"en": wire["label"], "zh": outcome.as_wire("zh")["label"]}
    return wire
