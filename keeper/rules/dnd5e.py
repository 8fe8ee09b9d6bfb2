"""D&D 5e checks: d20 + modifier against a DC (docs/rules.md, "D&D 5e checks").

The d20 with advantage or disadvantage is `keeper/dice/advantage.py`.
"""

from __future__ import annotations

from keeper.rules.outcome import Outcome

# The proficiency bonus of a starting character; levels arrive with fuller sheets.
PROFICIENCY_BONUS = 2
TIERS = {"fumble": 0, "failure": 1, "success": 2, "critical": 3}
ADVANTAGE_WORDS = {"adv", "advantage", "优势"}
DISADVANTAGE_WORDS = {"dis", "disadvantage", "劣势"}


def modifier(score: int) -> int:
    """The ability modifier of a score: (score - 10) // 2."""
    return (score - 10) // 2


def grade(natural: int, total: int, dc: int | None) -> Outcome | None:
    """Grade a check: natural 20 critical, natural 1 fumble, else total against the DC.

    Without a DC the roll is ungraded (None).
    """
    if dc is None:
        return None
    if natural == 20:
        rank = "critical"
    elif natural == 1:
        rank = "fumble"
    elif total >= dc:
        rank = "success"
    else:
        rank = "failure"
    return Outcome(
        id=rank,
        success=rank in ("critical", "success"),
        critical=rank == "critical",
        fumble=rank == "fumble",
        tier=TIERS[rank],
        margin=total - dc,
    )
