"""The one source of randomness for dice.

Production rolls come from the operating system's CSPRNG; tests seed a roller and get
the same rolls every time. `d20` draws from the module-level `random` of its
expression module, so the roller installs its source there: there is one source per
process, and it is this one.
"""

from __future__ import annotations

import random
import secrets


class Roller:
    """Draws die faces; `Roller(seed=n)` is reproducible, `Roller()` is a CSPRNG."""

    def __init__(self, seed: int | None = None) -> None:
        self.source: random.Random = random.Random(seed) if seed is not None else secrets.SystemRandom()

    def install(self) -> Roller:
        """Make this roller the source of every die in the process (d20's included)."""
        # d20 is loaded with the first roll: building its grammar costs a tenth of a
        # second of every process's start.
        import d20.expression

        global _current
        _current = self
        d20.expression.random = self.source
        return self

    def die(self, sides: int) -> int:
        """One face of a die with `sides` sides (1..sides)."""
        return self.source.randrange(sides) + 1

    def tens(self) -> int:
        """A percentile tens die: 0, 10, ..., 90."""
        return self.source.randrange(10) * 10


_current: Roller | None = None


def roller() -> Roller:
    """The process's roller (a CSPRNG one unless a test installed a seeded one)."""
    return _current if _current is not None else Roller().install()
