"""The per-viewer `state` snapshot.

Characters, initiative and module variables arrive with the game-core and Keeper
issues; the shape, the per-viewer rule and the discovered rule systems are here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from keeper.rules.packs import catalog


@dataclass(frozen=True)
class Viewer:
    """Who a snapshot is built for."""

    member_id: str
    is_keeper: bool
    locale: str


def build_state(*, room_id: int, viewer: Viewer, online: Sequence[tuple[str, str]]) -> dict:
    """The `state` frame for one viewer. `online` lists (member_id, name) of connected members.

    A projection, run on the event loop for every viewer after every turn: what it
    needs from the database is read once per refresh before it is called.
    """
    return {
        "type": "state",
        "party": [],
        "initiative": [],
        "online": len(online),
        "systems": catalog().systems(),
    }
