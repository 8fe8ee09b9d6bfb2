"""What the table is shown after a turn's narrative and before its `idle` (turn flow
steps 8 and 9): the Stage Director's presentations and what the room's event hooks
emitted.

The Stage Director is the Keeper's `present` tool: on a story beat (a letter found, a
newspaper read, a new act, a place on the map) it hands the players a performance
template (`letter`, `clipping`, `title_card`, `map_pin`, `image`). What goes in is
what the characters hold or see: the text passes the same output filter as the
narration, and a picture must be one this room can reach. What the room's hooks
(`packs/hooks.py`, fired by `keeper/turn_hooks.py`) emit is shown after them.

Everything here is cleaned by `packs/ui_blocks.py` before it becomes a frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from base import frames
from keeper import chronicle
from keeper.kp.censor import OutputFilter
from packs import hooks, ui_blocks
from packs import services as pack_services

TEMPLATES = ("letter", "clipping", "title_card", "map_pin", "image")
_TEXT_FIELDS = {
    "letter": ("body", "from", "to", "date"),
    "clipping": ("headline", "body", "source", "date"),
    "title_card": ("title", "subtitle", "act"),
    "map_pin": ("label", "note"),
    "image": ("caption", "alt"),
}


def filtered(text: str) -> str:
    """`text` as the table's output filter lets it through (what the Stage Director and
    the hooks tell the table)."""
    line = OutputFilter()
    return (line.feed(text) + line.finish()).strip()


def presentation(room_id: int, arguments: dict) -> tuple[dict | None, str]:
    """The Stage Director's `ui` frame for the tool's `arguments`, and what the model
    is told (None and the reason when nothing can be presented)."""
    template = arguments.get("template")
    if template not in TEMPLATES:
        return None, f"template is one of {', '.join(TEMPLATES)}"
    block: dict[str, Any] = {"kind": template}
    for name in _TEXT_FIELDS[template]:
        value = arguments.get(name)
        if isinstance(value, str) and value.strip():
            block[name] = filtered(value)
    if template == "map_pin":
        block.update(x=arguments.get("x"), y=arguments.get("y"))
    pictures: dict[str, dict] = {}
    if template in ("map_pin", "image"):
        picture = pack_services.find_picture(room_id, str(arguments.get("picture") or ""))
        if picture is None:
            return None, "name a picture the table already has (its title), or use another template"
        block["hash"] = picture
        pictures = pack_services.reachable_pictures(room_id, {picture})
    cleaned = ui_blocks.clean_block(block, pictures)
    if cleaned is None:
        return None, f"the {template} is missing what it needs (see the tool's fields)"
    return frames.ui([cleaned], panel="inline"), f"the table sees the {template} now"


@dataclass
class TurnSeen:
    """A turn as it happened: its public side (what the hooks see, and `told`: the
    Keeper's lines, the public rolls and the NPCs' lines in the order the table saw
    them), and the keeper-only facts the chronicle keeps apart."""

    actor: str
    line: str = ""
    reply: list[str] = field(default_factory=list)
    rolls: list[dict] = field(default_factory=list)
    npc_lines: list[str] = field(default_factory=list)
    keeper_facts: list[str] = field(default_factory=list)
    hidden_rolls: list[dict] = field(default_factory=list)
    told: list[str | dict] = field(default_factory=list)

    def narrated(self, text: str) -> None:
        """The Keeper told the table `text` (markdown)."""
        self.reply.append(text)
        self.told.append(text)

    def rolled(self, roll: dict) -> None:
        """The table saw a roll (`public_roll`)."""
        self.rolls.append(roll)
        self.told.append(roll)

    def npc_said(self, name: str, text: str) -> None:
        """The Keeper voiced an NPC (markdown)."""
        said = f"{name}: {text}"
        self.npc_lines.append(said)
        self.told.append(said)

    def chronicled(self) -> chronicle.Turn:
        """The turn as its chronicle entry keeps it: the Keeper's markdown as plain text,
        and what the table was told in the order it was told."""
        return chronicle.Turn(
            self.actor,
            self.line,
            "\n\n".join(chronicle.plain_text(text) for text in self.reply),
            self.rolls,
            [chronicle.plain_text(line) for line in self.npc_lines],
            self.keeper_facts,
            self.hidden_rolls,
            told=[part if isinstance(part, dict) else chronicle.plain_text(part) for part in self.told],
        )


def public_roll(frame: dict) -> dict:
    """What a hook sees of a public dice frame: the frame's fields but its type."""
    return {key: value for key, value in frame.items() if key != "type"}


def hook_roll(frame: dict, tool: str) -> dict:
    """What `dice_rolled` tells of a public dice frame of the Keeper's `tool` (or of a
    typed command, `.r`): the frame's fields, the tool, and the roll in a few words
    (`result`)."""
    roll = public_roll(frame)
    outcome = roll.get("outcome") if isinstance(roll.get("outcome"), dict) else {}
    said = f"{roll.get('actor', '')} {roll.get('expr', '')} = {roll.get('total', '')}".strip()
    return {**roll, "tool": tool, "result": f"{said} {outcome.get('label', '')}".strip()}


def hook_frames(room_id: int, emissions: hooks.Emissions) -> tuple[list[dict], list[dict]]:
    """The `ui` and `panel_event` frames of what the hooks emitted, cleaned; a picture
    the room cannot reach is dropped before the frame is built."""
    wanted: set[str] = set()
    for blocks, _options in emissions.ui:
        wanted |= ui_blocks.hashes_named(blocks)
    pictures = pack_services.reachable_pictures(room_id, wanted)
    ui_frames = []
    for blocks, options in emissions.ui:
        kept, _dropped = ui_blocks.clean_blocks(blocks, pictures)
        if kept:
            ui_frames.append(frames.ui(kept, **ui_blocks.ui_options(options)))
    panel_frames = [frames.panel_event(panel, payload) for panel, payload in emissions.panel_events]
    return ui_frames, panel_frames
