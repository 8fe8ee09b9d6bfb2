"""Every die the table rolls: one roller that owns randomness, a safe expression
evaluator over the `d20` library plus the SealDice forms players type, and the generic
mechanics rule systems share (`percentile.py`: d100 with bonus and penalty dice;
`advantage.py`: a d20 with advantage or disadvantage)."""

from keeper.dice.expressions import DiceError, RollResult, roll_expression
from keeper.dice.roller import Roller, roller

__all__ = ["DiceError", "RollResult", "Roller", "roll_expression", "roller"]
