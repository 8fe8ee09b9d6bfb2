"""What every Keeper tool is made of: where it runs (`ToolContext`), what it did
(`ToolOutcome`), and the tool itself with its JSON schema (`Tool`). Apart from
`keeper/kp/tools.py` so that tool modules of their own (`item_tools.py`) can build
tools that `tools.TOOLS` offers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


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
    after the narration (the Stage Director's)."""

    result: str
    events: list[tuple[dict, bool]] = field(default_factory=list)
    keeper_notice: str = ""
    ui: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Tool:
    name: str
    activity: str  # reading | dice | cast | bookkeeping
    description: str
    parameters: dict
    run: Callable[[dict, ToolContext], ToolOutcome] | None  # None: run by the turn loop (NPC voices)

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
