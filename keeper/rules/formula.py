"""Pack formulas (`(CON + SIZ) // 10`): integer arithmetic over sheet names, comparisons
(worth 1 when true, 0 when false: `8 + (DEX > SIZ) * (STR > SIZ)`), `min` and `max`;
nothing else."""

from __future__ import annotations

import ast
import operator

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
}


_COMPARISONS = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
}


class FormulaError(ValueError):
    """A formula that uses anything but numbers, sheet names and + - * //."""


def evaluate(formula: str | int, names: dict[str, int]) -> int:
    """The value of `formula` with `names` bound (a plain number is itself)."""
    if isinstance(formula, int):
        return formula
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        raise FormulaError(f"{formula!r} is not a formula") from None
    return _eval(tree.body, names, formula)


def _eval(node: ast.AST, names: dict[str, int], formula: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise FormulaError(f"{formula!r} uses {node.id!r}, which the sheet does not have")
        return int(names[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names, formula)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARISONS:
        left, right = _eval(node.left, names, formula), _eval(node.comparators[0], names, formula)
        return int(_COMPARISONS[type(node.ops[0])](left, right))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("min", "max")
        and node.args
        and not node.keywords
    ):
        values = [_eval(argument, names, formula) for argument in node.args]
        return min(values) if node.func.id == "min" else max(values)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        right = _eval(node.right, names, formula)
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise FormulaError(f"{formula!r} divides by zero")
        return _OPERATORS[type(node.op)](_eval(node.left, names, formula), right)
    raise FormulaError(f"{formula!r} may only use numbers, sheet names, + - * //, comparisons, min and max")
