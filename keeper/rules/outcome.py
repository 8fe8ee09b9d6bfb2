"""The neutral check-outcome contract every graded check returns (checklist 73)."""

from __future__ import annotations

from dataclasses import dataclass

LABELS = {
    "critical": {"en": "Critical success", "zh": "大成功"},
    "extreme": {"en": "Extreme success", "zh": "极难成功"},
    "hard": {"en": "Hard success", "zh": "困难成功"},
    "regular": {"en": "Success", "zh": "成功"},
    "success": {"en": "Success", "zh": "成功"},
    "failure": {"en": "Failure", "zh": "失败"},
    "fumble": {"en": "Fumble", "zh": "大失败"},
}


@dataclass(frozen=True)
class Outcome:
    """A graded check. `id` is presentation only: code branches on the flags and tier."""

    id: str
    success: bool
    critical: bool
    fumble: bool
    tier: int
    margin: int | None = None

    def as_wire(self, locale: str = "en") -> dict:
        """The `outcome` object of a `dice` frame, labelled in the viewer's language."""
        labels = LABELS.get(self.id, {"en": self.id})
        wire = {
            "id": self.id,
            "label": labels.get(locale) or labels["en"],
            "success": self.success,
            "critical": self.critical,
            "fumble": self.fumble,
            "tier": self.tier,
        }
        if self.margin is not None:
            wire["margin"] = self.margin
        return wire
