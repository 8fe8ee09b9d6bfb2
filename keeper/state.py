"""The per-viewer `state` snapshot.

A turn ends with one read of the room (`read_room`), done by whoever ended it, in the
same database visit as the turn's own work when it can be. The read is plain data,
already labelled in every language a viewer may have (`RoomRead`), so it travels to
every server process inside the refresh message: no process reads the room again, and
each connection only projects its viewer's frame from it (`build_state`).

Most turns change nothing `state` shows (a story line, a plain roll), so the read is
kept per process with the room's state stamp (`StateStamp`, counted by database
triggers on every write to the tables behind it) and reused while the stamp holds
(`current_room`): one tiny query instead of three.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from base import frames
from keeper import characters, inventory, quests, variables
from keeper.models import Character, InitiativeEntry, Story
from keeper.rules.packs import catalog

# The languages a connection may choose (`join.locale`); a snapshot carries each.
LOCALES = ("en", "zh")


@dataclass(frozen=True)
class Viewer:
    """Who a snapshot is built for."""

    member_id: str
    is_keeper: bool
    locale: str


@dataclass(frozen=True)
class RoomRead:
    """What one refresh reads about a room, as plain data (it rides the room bus).

    - `sheets`: the active characters with an owner, in name order: owner, the party
      entry (`online`/`active` left to the viewer), and per language the owner's own
      `character` block and the entry's resources.
    - `common`: the parts every viewer sees alike (initiative, scene, clock, usage,
      pregens, systems), and the module variables, all of them: each viewer's share
      is kept when its frame is built (a player's never has an unexposed one).
    """

    sheets: list[dict] = field(default_factory=list)
    common: dict[str, Any] = field(default_factory=dict)

    def as_message(self) -> dict:
        """The snapshot as a field of a room-bus message."""
        return {"sheets": self.sheets, "common": self.common}

    @classmethod
    def from_message(cls, data: dict) -> RoomRead:
        """The snapshot back from `as_message`."""
        return cls(sheets=data["sheets"], common=data["common"])


def read_room(room_id: int) -> RoomRead:
    """The room's characters (active sheets, the pregen roster), initiative order and
    story, projected once for every language. Blocking: never on a running event loop
    (a brief turn's group hides it: wire/commits.py)."""
    present = Character.objects.filter(room_id=room_id).filter(active=True) | Character.objects.filter(
        room_id=room_id, pregen=True
    )
    roster = list(present.order_by("name", "id"))
    initiative = list(InitiativeEntry.objects.filter(room_id=room_id))
    story = Story.objects.filter(room_id=room_id).first()
    rolled = {entry.name: entry.value for entry in initiative}

    sheets = []
    for c in roster:
        if not (c.active and c.owner):
            continue
        resources = {locale: characters.resources_for(c, locale) for locale in LOCALES}
        entry: dict[str, Any] = {"name": c.name}
        if c.name in rolled:
            entry["initiative"] = rolled[c.name]
        if c.avatar:
            entry["avatar"] = c.avatar
        sheets.append(
            {
                "owner": c.owner,
                "entry": entry,
                "resources": resources,
                "character": {locale: _character_frame(c, resources[locale], locale) for locale in LOCALES},
            }
        )

    common: dict[str, Any] = {
        "initiative": [{"name": e.name, "value": e.value, "current": e.current} for e in initiative]
    }
    if story is not None:
        if story.scene_name:
            common["scene"] = {"name": story.scene_name}
            if story.scene_focus:
                common["scene"]["focus"] = story.scene_focus
        if story.clock_minutes is not None:
            common["clock"] = {locale: {"time": story.clock_text(locale)} for locale in LOCALES}
        if story.ai_turns:
            counters = [name for name in Story.USAGE_FIELDS if name != "ai_turns"]
            common["usage"] = {name: getattr(story, name) for name in counters}
    pregens = [{"name": c.name, "claimed_by": c.owner} for c in roster if c.pregen]
    if pregens:
        common["pregens"] = pregens
    common["systems"] = catalog().systems()
    declared = variables.entries(room_id)
    if declared:
        common["variables"] = declared  # every one: `build_state` keeps each viewer's share
    pursued = quests.entries(room_id)
    if pursued:
        common["quests"] = pursued  # every one: `build_state` keeps each viewer's share
    return RoomRead(sheets=sheets, common=common)


class _KnownRooms:
    """The last read of each room this process made, with the state stamp it was read
    at. Per-process derived data: the truth stays in the database, and a stamp that
    moved means read again."""

    KEEP = 1024

    def __init__(self) -> None:
        self._reads: OrderedDict[int, tuple[int, RoomRead]] = OrderedDict()
        self._lock = threading.Lock()  # read on the database thread and the loop's (brief turns)

    def get(self, room_id: int, stamp: int) -> RoomRead | None:
        with self._lock:
            known = self._reads.get(room_id)
            if known is None or known[0] != stamp:
                return None
            self._reads.move_to_end(room_id)
            return known[1]

    def put(self, room_id: int, stamp: int, room: RoomRead) -> None:
        with self._lock:
            self._reads[room_id] = (stamp, room)
            self._reads.move_to_end(room_id)
            while len(self._reads) > self.KEEP:
                self._reads.popitem(last=False)


_known_rooms = _KnownRooms()


def state_stamp(room_id: int) -> int:
    """How many writes the room's characters, initiative and story have seen (0: none).
    A plain cursor: this runs at the end of every turn, and the ORM would cost more
    than the query."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM keeper_statestamp WHERE room_id = %s", [room_id])
        row = cursor.fetchone()
    return row[0] if row else 0


def current_room(room_id: int, stamp: int | None = None) -> RoomRead:
    """`read_room`, reused from this process's last read while the room's state stamp
    has not moved. The stamp is read first (or given: read by the caller, in the same
    transaction, after the last write to the room's state), so a write racing the read
    only makes the next call read again. Blocking: runs with the turn's database work
    (on the database thread, or the event loop's for a brief turn: wire/commits.py)."""
    if stamp is None:
        stamp = state_stamp(room_id)
    room = _known_rooms.get(room_id, stamp)
    if room is None:
        room = read_room(room_id)
        _known_rooms.put(room_id, stamp, room)
    return room


def _character_frame(character: Character, resources: list[dict], locale: str) -> dict:
    pack = characters.pack_of(character)
    return {
        "name": character.name,
        "system": character.system,
        "resources": resources,
        # Characteristics only, in pack order: no vitals, no derived values (v2.3).
        "attributes": {
            key: character.attributes[key] for key in pack.sheet.attributes if key in character.attributes
        },
        # Additive (docs/rules.md, "What the sheet shows"): how the system and each
        # characteristic read in the viewer's language; the keys above stay ids.
        "system_name": pack.name.pick(locale),
        "attribute_names": {key: pack.sheet.skill_label(key, locale) for key in pack.sheet.attributes},
        "status_effects": list(character.status_effects),
        **({"avatar": character.avatar} if character.avatar else {}),
        # The owner's belongings (docs/decisions.md, "Items, money and quests").
        **inventory.sheet_block(character, locale),
    }


def _locale_of(viewer: Viewer) -> str:
    return viewer.locale if viewer.locale in LOCALES else LOCALES[0]


def state_share(room: RoomRead, viewer: Viewer) -> tuple[str, bool, str]:
    """What of `viewer` its `build_state` of `room` depends on: viewers with the same
    share are shown the same frame. Their language and whether they keep the room, and
    who they are only when they own one of its characters (theirs is the `character`
    block and the `active` entry of the party)."""
    owns = any(sheet["owner"] == viewer.member_id for sheet in room.sheets)
    return _locale_of(viewer), viewer.is_keeper, viewer.member_id if owns else ""


def build_state(*, room: RoomRead, viewer: Viewer, online: Sequence[tuple[str, str]]) -> dict:
    """The `state` frame for one viewer. `online` lists (member_id, name) of connected members."""
    locale = _locale_of(viewer)
    online_ids = {member_id for member_id, _name in online}
    frame = frames.state()
    party = []
    for sheet in room.sheets:
        owner = sheet["owner"]
        if owner == viewer.member_id and "character" not in frame:
            frame["character"] = sheet["character"][locale]
        member = {
            "name": sheet["entry"]["name"],
            "online": owner in online_ids,
            "active": owner == viewer.member_id,
            "resources": sheet["resources"][locale],
        }
        member.update((key, value) for key, value in sheet["entry"].items() if key != "name")
        party.append(member)
    frame["party"] = party
    common = room.common
    frame["initiative"] = common.get("initiative", [])
    frame["online"] = len(online)
    for key in ("scene", "usage", "pregens"):
        if key in common:
            frame[key] = common[key]
    if "clock" in common:
        frame["clock"] = common["clock"][locale]
    frame["systems"] = common.get("systems", [])
    shown = variables.for_viewer(common.get("variables", []), is_keeper=viewer.is_keeper, locale=locale)
    if shown:
        frame["variables"] = shown
    pursued = quests.for_viewer(common.get("quests", []), is_keeper=viewer.is_keeper)
    if pursued:
        frame["quests"] = pursued
    return frame
