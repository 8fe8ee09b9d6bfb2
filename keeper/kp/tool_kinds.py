"""What every Keeper tool is made of: where it runs (`ToolContext`), what it did
(`ToolOutcome`), and the tool itself with its JSON schema (`Tool`). Apart from
`keeper/kp/tools.py` so that tool modules of their own (`item_tools.py`) can build
tools that `tools.TOOLS` offers.

A tool's arguments are checked against its schema before it runs (`Tool.misfit`),
by a pydantic model built from that schema: the schema the model is offered stays the
one written here, and the check cannot drift from it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)


@dataclass(frozen=True)
class ToolContext:
    """Where a tool runs: the room, who started the turn, the room's language."""

    room_id: int
    actor_member_id: str
    actor_name: str
    locale: str


@dataclass
class ToolOutcome:
    """What a tool did: `result` for the model; `events` (frame, keepers_only) for the
    table; `keeper_notice` for the keepers' eyes only; `ui` frames the table is shown
    after the narration (the Stage Director's); `happened`, what the room's hooks hear
    of (`("clock_advanced", {from, to, delta, minutes})`, `("variables_changed", {path,
    op})`)."""

    result: str
    events: list[tuple[dict, bool]] = field(default_factory=list)
    keeper_notice: str = ""
    ui: list[dict] = field(default_factory=list)
    happened: list[tuple[str, dict]] = field(default_factory=list)


@dataclass(frozen=True)
class Tool:
    name: str
    activity: str  # reading | dice | cast | bookkeeping
    description: str
    parameters: dict
    run: Callable[[dict, ToolContext], ToolOutcome] | None  # None: run by the turn loop (NPC voices)

    def __post_init__(self) -> None:
        # Built with the tool, so a schema the check cannot read fails at import, not mid-turn.
        object.__setattr__(self, "_arguments", arguments_model(self.name, self.parameters))

    def misfit(self, arguments: dict) -> str | None:
        """What is wrong with `arguments` against the tool's schema, for the model to
        read and call again (each argument named with what it takes); None when they fit."""
        try:
            self._arguments.model_validate(arguments)  # type: ignore[attr-defined]
        except ValidationError as wrong:
            return self._explain(wrong, arguments)
        return None

    def _explain(self, wrong: ValidationError, arguments: dict) -> str:
        properties = self.parameters.get("properties", {})
        problems: dict[str, str] = {}
        for error in wrong.errors():
            name = str(error["loc"][0]) if error["loc"] else ""
            if name in problems:
                continue  # a union's branches each report the same argument
            if error["type"] == "missing":
                problems[name] = f"`{name}` is missing ({expected(properties[name])})"
            elif error["type"] == "extra_forbidden":
                problems[name] = f"`{name}` is not an argument of {self.name}"
            else:
                got = json.dumps(arguments.get(name), ensure_ascii=False)
                got = got if len(got) <= 40 else got[:37] + "..."
                problems[name] = f"`{name}` must be {expected(properties[name])}, not {got}"
        required = set(self.parameters.get("required", []))
        takes = ", ".join(p + (" (required)" if p in required else "") for p in properties) or "no arguments"
        return (
            f"{self.name} did not run: " + "; ".join(problems.values()) + f". It takes: {takes}. "
            "Call it again with arguments that fit its schema."
        )

    def spec(self) -> dict:
        """The OpenAI `tools` entry."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def schema(required: list[str], **properties: dict) -> dict:
    """A tool's parameters: an object of `properties`, the `required` ones named."""
    return {"type": "object", "properties": properties, "required": required}


TEXT = {"type": "string"}
INT = {"type": "integer"}


# The JSON types a tool's schema uses, as pydantic checks them: strictly, so 5 is not
# the string "5" and true is not the number 1.
_SCALARS: dict[str, Any] = {
    "string": StrictStr,
    "integer": StrictInt,
    "number": Union[StrictInt, StrictFloat],  # noqa: UP007 (a runtime value, not an annotation)
    "boolean": StrictBool,
}
_WORDS = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false"}


def _python_type(prop: dict) -> Any:
    """The pydantic type of one property. An `enum` is checked as its type only: the
    tools read the words a player would type for an option too (`Hard`, `完成`) and
    answer an unknown one themselves."""
    kinds = prop.get("type")
    if isinstance(kinds, list):
        return Union[tuple(_python_type({"type": kind}) for kind in kinds)]  # noqa: UP007
    if kinds == "array":
        return list[_python_type(prop["items"])]  # type: ignore[misc]
    return _SCALARS[kinds]  # KeyError: a type this check does not know; add it here


def expected(prop: dict) -> str:
    """What a property takes, in words for the model ("a whole number", "a list of strings")."""
    kinds = prop.get("type")
    if isinstance(kinds, list):
        words = [_WORDS[kind] for kind in kinds]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + ", or " + words[-1]
    if kinds == "array":
        return "a list of " + expected(prop["items"]).removeprefix("a ") + "s"
    if "enum" in prop:
        return "one of " + ", ".join(map(str, prop["enum"]))
    return _WORDS[kinds]


def arguments_model(name: str, parameters: dict) -> type[BaseModel]:
    """The pydantic model of a tool's `parameters` (an object schema, as `schema` makes):
    the required properties must be there and not null; the others may be left out or
    null (models send null for what they leave out, and the tools read it as absent);
    no property the schema does not declare."""
    required = set(parameters.get("required", []))
    fields: dict[str, Any] = {}
    for prop, described in parameters.get("properties", {}).items():
        kind = _python_type(described)
        fields[prop] = (kind, ...) if prop in required else (kind | None, None)
    config = ConfigDict(extra="forbid", strict=True)
    return create_model(f"{name}_arguments", __config__=config, **fields)
