"""Every die the table rolls: one roller that owns randomness, and a safe expression
evaluator over the `d20` library plus the SealDice forms players type."""

from keeper.dice.expressions import DiceError, RollResult, roll_expression
from keeper.dice.roller import Roller, roller

__all__ = ["DiceError", "RollResult", "Roller", "roll_expression", "roller"]
