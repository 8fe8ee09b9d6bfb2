"""Dice the tests control: a seeded roller, or faces chosen one by one."""

from __future__ import annotations

import random

import pytest

from keeper.dice.roller import Roller


class Scripted(random.Random):
    """Dice whose faces the test chooses: each randrange(n) returns the next value."""

    def __init__(self, values: list[int]) -> None:
        super().__init__()
        self.values = list(values)

    def randrange(self, n: int, *args: object) -> int:  # type: ignore[override]
        return self.values.pop(0)


@pytest.fixture
def dice():
    """Script the next faces: `dice(0, 4, 2)` makes the next three randrange calls 0, 4, 2."""

    def script(*values: int) -> None:
        roller = Roller(seed=0)
        roller.source = Scripted(list(values))
        roller.install()

    yield script
    Roller().install()


@pytest.fixture
def seeded():
    """A reproducible roller for the test, the CSPRNG one again after it."""
    Roller(seed=11).install()
    yield
    Roller().install()
