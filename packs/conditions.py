"""`visible_when`: the small condition language of panel template blocks.

Clients evaluate a block's condition against their own viewer's `state.variables`
and hide the block when it is false or cannot be evaluated (fail-closed). The server
never evaluates it for the wire; it refuses, when a pack is built, any condition
outside the portable subset every client implements (`check`), and this evaluator is
the reference the shared conformance vectors are run through.

The subset (docs/packs.md):
- comparisons `=== !== == != >= <= > <`, one per operand pair (no chains);
- logic `&& || !` and the words `and or not`; `!` negates a whole comparison;
- literals: numbers (`12`, `1.5`), 'strings' and "strings" (a backslash keeps the next
  character as it is), `true false null undefined` (`none` too), any case;
- references: dotted paths of letters (any script), digits and `_`, each looked up
  as one variable id; an absent variable is null;
- nothing else: no arithmetic (unary minus included), no calls, no brackets.

Semantics: `==`/`!=` are equal when the values are, or when both read as the same
number (booleans as 0/1, strings trimmed); `===`/`!==` also need the same type (a
bool is never a number, an integer never a decimal); ordering compares numbers (the
same reading) or two non-numeric strings by code point, and anything else (null, a
string against a number) is an error. `&&` and `||` short-circuit, and the result's
truth decides: null, false, 0, "" and empty lists are false.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_LENGTH = 500
MAX_TOKENS = 200

_KEYWORDS = {"true": True, "false": False, "null": None, "undefined": None, "none": None}
_WORD_OPERATORS = {"and": "&&", "or": "||", "not": "!"}
_COMPARISONS = ("===", "!==", "==", "!=", ">=", "<=", ">", "<")
# Characters that only arithmetic, calls or brackets would need: outside the subset.
_OUTSIDE = {"+": "arithmetic", "-": "arithmetic", "*": "arithmetic", "/": "arithmetic"}
_OUTSIDE.update({"%": "arithmetic", "[": "brackets", "]": "brackets", ",": "function calls"})
_DIGITS = frozenset("0123456789")


class ConditionError(ValueError):
    """The condition cannot be read or evaluated; the block it gates stays hidden."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "op", "value", "path", "("  or ")"
    text: str
    value: Any = None


def _tokens(expression: str) -> list[_Token]:
    if len(expression) > MAX_LENGTH:
        raise ConditionError(f"longer than {MAX_LENGTH} characters")
    found: list[_Token] = []
    position = 0
    while position < len(expression):
        char = expression[position]
        if char.isspace():
            position += 1
            continue
        if char in _OUTSIDE:
            raise ConditionError(f"{_OUTSIDE[char]} ({char!r}) is outside the portable subset")
        if char in "()":
            found.append(_Token(char, char))
            position += 1
        elif char in "'\"":
            text, position = _string(expression, position)
            found.append(_Token("value", text, text))
        elif char in _DIGITS:  # ASCII only: "²" is a digit to str.isdigit, not to int()
            end = position
            while end < len(expression) and expression[end] in _DIGITS:
                end += 1
            if end + 1 < len(expression) and expression[end] == "." and expression[end + 1] in _DIGITS:
                end += 1
                while end < len(expression) and expression[end] in _DIGITS:
                    end += 1
                number: int | float = float(expression[position:end])
            else:
                number = int(expression[position:end])
            found.append(_Token("value", expression[position:end], number))
            position = end
        elif char.isalpha() or char == "_":
            path, position = _path(expression, position)
            lowered = path.lower()
            if lowered in _KEYWORDS:
                found.append(_Token("value", path, _KEYWORDS[lowered]))
            elif lowered in _WORD_OPERATORS:
                found.append(_Token("op", _WORD_OPERATORS[lowered]))
            elif expression[position:].lstrip().startswith("("):
                raise ConditionError(f"function calls ({path}(...)) are outside the portable subset")
            else:
                found.append(_Token("path", path))
        else:
            operator = next(
                (op for op in (*_COMPARISONS, "&&", "||", "!") if expression.startswith(op, position)), None
            )
            if operator is None:
                raise ConditionError(f"unexpected {char!r}")
            found.append(_Token("op", operator))
            position += len(operator)
        if len(found) > MAX_TOKENS:
            raise ConditionError(f"more than {MAX_TOKENS} tokens")
    return found


def _string(expression: str, start: int) -> tuple[str, int]:
    quote, position, text = expression[start], start + 1, []
    while position < len(expression):
        char = expression[position]
        if char == "\\" and position + 1 < len(expression):
            text.append(expression[position + 1])
            position += 2
        elif char == quote:
            return "".join(text), position + 1
        else:
            text.append(char)
            position += 1
    raise ConditionError("a string is not closed")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _path(expression: str, start: int) -> tuple[str, int]:
    position = start
    while position < len(expression) and _is_word(expression[position]):
        position += 1
    while (
        position + 1 < len(expression) and expression[position] == "." and _is_word(expression[position + 1])
    ):
        position += 1
        while position < len(expression) and _is_word(expression[position]):
            position += 1
    return expression[start:position], position


# The parsed tree: ("value", v) | ("path", id) | ("not", node) | ("and"|"or", left, right)
# | ("compare", operator, left, right).
Node = tuple


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens, self.position = tokens, 0

    def peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.peek()
        if token is None:
            raise ConditionError("the condition ends too early")
        self.position += 1
        return token

    def whole(self) -> Node:
        if not self.tokens:
            raise ConditionError("the condition is empty")
        node = self.either()
        if self.peek() is not None:
            raise ConditionError(f"unexpected {self.peek().text!r}")
        return node

    def either(self) -> Node:
        node = self.both()
        while (token := self.peek()) is not None and token.kind == "op" and token.text == "||":
            self.take()
            node = ("or", node, self.both())
        return node

    def both(self) -> Node:
        node = self.negation()
        while (token := self.peek()) is not None and token.kind == "op" and token.text == "&&":
            self.take()
            node = ("and", node, self.negation())
        return node

    def negation(self) -> Node:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text == "!":
            self.take()
            return ("not", self.negation())
        return self.comparison()

    def comparison(self) -> Node:
        left = self.operand()
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in _COMPARISONS:
            self.take()
            node = ("compare", token.text, left, self.operand())
            after = self.peek()
            if after is not None and after.kind == "op" and after.text in _COMPARISONS:
                raise ConditionError("comparisons do not chain; join them with &&")
            return node
        return left

    def operand(self) -> Node:
        token = self.take()
        if token.kind == "value":
            return ("value", token.value)
        if token.kind == "path":
            return ("path", token.text)
        if token.kind == "(":
            node = self.either()
            closing = self.peek()
            if closing is None or closing.kind != ")":
                raise ConditionError("a parenthesis is not closed")
            self.take()
            return node
        raise ConditionError(f"unexpected {token.text!r}")


def parse(expression: str) -> Node:
    """The condition's tree; raises ConditionError when it is outside the subset."""
    if not isinstance(expression, str) or not expression.strip():
        raise ConditionError("the condition is empty")
    return _Parser(_tokens(expression)).whole()


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        text = value.strip()
        for read in (int, float):
            try:
                return read(text)
            except ValueError:
                continue
    return None


def _loosely_equal(left: Any, right: Any) -> bool:
    if left == right:
        return True
    a, b = _number(left), _number(right)
    return a is not None and b is not None and a == b


def _strictly_equal(left: Any, right: Any) -> bool:
    return type(left) is type(right) and left == right


def _order(operator: str, left: Any, right: Any) -> bool:
    a, b = _number(left), _number(right)
    if a is None or b is None:
        if isinstance(left, str) and isinstance(right, str) and a is None and b is None:
            a, b = left, right
        else:
            raise ConditionError(f"{left!r} and {right!r} cannot be ordered")
    return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[operator]


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "==":
        return _loosely_equal(left, right)
    if operator == "!=":
        return not _loosely_equal(left, right)
    if operator == "===":
        return _strictly_equal(left, right)
    if operator == "!==":
        return not _strictly_equal(left, right)
    return _order(operator, left, right)


def _truthy(value: Any) -> bool:
    return bool(value) if not isinstance(value, float) or value == value else True  # NaN is true


def _value(node: Node, variables: Mapping[str, Any]) -> Any:
    kind = node[0]
    if kind == "value":
        return node[1]
    if kind == "path":
        return variables.get(node[1])
    if kind == "not":
        return not _truthy(_value(node[1], variables))
    if kind == "and":
        left = _value(node[1], variables)
        return _value(node[2], variables) if _truthy(left) else left
    if kind == "or":
        left = _value(node[1], variables)
        return left if _truthy(left) else _value(node[2], variables)
    return _compare(node[1], _value(node[2], variables), _value(node[3], variables))


def evaluate(expression: str, variables: Mapping[str, Any]) -> bool:
    """Whether the condition holds for `variables` (id -> value); raises
    ConditionError when it cannot be evaluated."""
    return _truthy(_value(parse(expression), variables))


def visible(expression: str | None, variables: Mapping[str, Any]) -> bool:
    """Whether a block gated by `expression` draws: yes without a condition, no when
    the condition is false or cannot be evaluated (fail-closed)."""
    if expression is None:
        return True
    try:
        return evaluate(expression, variables)
    except ConditionError:
        return False


def _paths(node: Node) -> list[str]:
    if node[0] == "path":
        return [node[1]]
    return [path for child in node[1:] if isinstance(child, tuple) for path in _paths(child)]


def check(expression: Any) -> None:
    """Refuse, with the reason, a condition a pack may not ship: not text, outside the
    subset, or failing even with every variable set (a type error such as `x > null`)."""
    if not isinstance(expression, str):
        raise ConditionError("a condition must be text")
    tree = parse(expression)
    evaluate(expression, dict.fromkeys(_paths(tree), "1"))
