"""The neutral check-outcome contract every graded check returns."""

from __future__ import annotations

from dataclasses import dataclass

from base.i18n import _, say

LABELS = {
    "critical": _("Critical success"),
    "extreme": _("Extreme success"),
    "hard": _("Hard success"),
    "regular": _("Success"),
    "success": _("Success"),
    "failure": _("Failure"),
    "fumble": _("Fumble"),
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
        wire = {
            "id": self.id,
            "label": say(locale, LABELS.get(self.id, self.id)),
            "success": self.success,
            "critical": self.critical,
            "fumble": self.fumble,
            "tier": self.tier,
        }
        if self.margin is not None:
            wire["margin"] = self.margin
        return wire
