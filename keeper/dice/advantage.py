"""A d20 with advantage or disadvantage: roll two, keep the higher or the lower.

The mechanic is generic (any d20 system may use it); the check it feeds, a modifier
against a DC, belongs to the rule system (`keeper/rules/dnd5e.py`). The module is not
called `d20.py` so that it is never mistaken for the `d20` expression library.
"""

from __future__ import annotations

from dataclasses import dataclass

from keeper.dice.roller import roller


@dataclass(frozen=True)
class D20Roll:
    """The d20s rolled and the one kept (advantage keeps the higher, disadvantage the lower)."""

    faces: list[int]
    kept: int
    mode: str  # "normal" | "advantage" | "disadvantage"


def roll_d20(advantage: int = 0, disadvantage: int = 0) -> D20Roll:
    """Roll a d20; advantage and disadvantage cancel (any of each cancels all)."""
    if advantage and not disadvantage:
        faces = [roller().die(20), roller().die(20)]
        return D20Roll(faces, max(faces), "advantage")
    if disadvantage and not advantage:
        faces = [roller().die(20), roller().die(20)]
        return D20Roll(faces, min(faces), "disadvantage")
    face = roller().die(20)
    return D20Roll([face], face, "normal")
