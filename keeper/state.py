"""The per-viewer `state` snapshot.

A turn ends with one read of the room per server process (`read_room`, shared by every
connection of that room there), then one pure projection per viewer (`build_state`):
the viewer's own character with labels in the viewer's language, the party, who is
online, and the rule systems the server discovered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from keeper import characters
from keeper.models import Character, InitiativeEntry, Story
from keeper.rules.packs import catalog
from loreweaver import frames


@dataclass(frozen=True)
class Viewer:
    """Who a snapshot is built for."""

    member_id: str
    is_keeper: bool
    locale: str


@dataclass(frozen=True)
class RoomRead:
    """What one refresh reads about a room from the database."""

    characters: list[Character] = field(default_factory=list)
    initiative: list[InitiativeEntry] = field(default_factory=list)
    story: Story | None = None


def read_room(room_id: int) -> RoomRead:
    """The room's characters (active sheets, the pregen roster), initiative order and story.

    Runs in a worker thread.
    """
    present = Character.objects.filter(room_id=room_id).filter(active=True) | Character.objects.filter(
        room_id=room_id, pregen=True
    )
    return RoomRead(
        characters=list(present.order_by("name", "id")),
        initiative=list(InitiativeEntry.objects.filter(room_id=room_id)),
        story=Story.objects.filter(room_id=room_id).first(),
    )


def _character_frame(character: Character, locale: str) -> dict:
    pack = characters.pack_of(character)
    return {
        "name": character.name,
        "system": character.system,
        "resources": characters.resources_for(character, locale),
        # Characteristics only, in pack order: no vitals, no derived values (v2.3).
        "attributes": {
            key: character.attributes[key] for key in pack.sheet.attributes if key in character.attributes
        },
        "status_effects": list(character.status_effects),
        **({"avatar": character.avatar} if character.avatar else {}),
    }


def build_state(*, room: RoomRead, viewer: Viewer, online: Sequence[tuple[str, str]]) -> dict:
    """The `state` frame for one viewer. `online` lists (member_id, name) of connected members."""
    online_ids = {member_id for member_id, _name in online}
    frame = frames.state()
    own = next((c for c in room.characters if c.active and c.owner == viewer.member_id), None)
    if own is not None:
        frame["character"] = _character_frame(own, viewer.locale)
    rolled = {entry.name: entry.value for entry in room.initiative}
    frame["party"] = []
    for c in room.characters:
        if not (c.active and c.owner):
            continue
        member = {
            "name": c.name,
            "online": c.owner in online_ids,
            "active": c.owner == viewer.member_id,
            "resources": characters.resources_for(c, viewer.locale),
        }
        if c.name in rolled:
            member["initiative"] = rolled[c.name]
        if c.avatar:
            member["avatar"] = c.avatar
        frame["party"].append(member)
    frame["initiative"] = [{"name": e.name, "value": e.value, "current": e.current} for e in room.initiative]
    frame["online"] = len(online)
    story = room.story
    if story is not None:
        if story.scene_name:
            frame["scene"] = {"name": story.scene_name}
            if story.scene_focus:
                frame["scene"]["focus"] = story.scene_focus
        if story.clock_minutes is not None:
            frame["clock"] = {"time": story.clock_text()}
        if story.ai_turns:
            frame["usage"] = {name: getattr(story, name) for name in Story.USAGE_FIELDS if name != "ai_turns"}
    pregens = [{"name": c.name, "claimed_by": c.owner} for c in room.characters if c.pregen]
    if pregens:
        frame["pregens"] = pregens
    frame["systems"] = catalog().systems()
    return frame
