"""Structured rounds: whom a round waits for, when its time is up, and whether the
Keeper still owes it an answer.

In a structured room (`.turns structured`) the Keeper answers once every connected
player has a line in the round, or when the round's time is up, counted from its first
line. The game decides all of that here; where a round's deadline is kept (a store
every server process sees, `loreweaver/wire/coordination.py`) and who frames the answer
is the wire's part (`loreweaver/wire/turns.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from keeper.turns import Actor, LinePlayed
from packs import hooks
from packs import services as pack_services
from rooms import selectors


class Present(Protocol):
    """A connected member, as the wire's presence knows them."""

    member_id: str
    name: str
    role: str


@dataclass(frozen=True)
class OpenRound:
    """A round that waits for players: the line it was opened after, who opened it, in
    which language the Keeper answers, and how long it may wait."""

    opened_after: int  # the Keeper's last line before the round (0: none)
    actor: Actor
    locale: str
    seconds: int

    @property
    def round_id(self) -> str:
        """Which round of the room this is: a later round is another."""
        return str(self.opened_after)

    def as_record(self) -> dict:
        """The round as plain data, kept where every server process can read it."""
        actor = self.actor
        return {
            "opened_after": self.opened_after,
            "actor": [actor.member_id, actor.name, actor.role],
            "locale": self.locale,
            "seconds": self.seconds,
        }

    @classmethod
    def from_record(cls, record: dict) -> OpenRound:
        """The round `as_record` kept."""
        member_id, name, role = record["actor"]
        return cls(record["opened_after"], Actor(member_id, name, role), record["locale"], record["seconds"])


def waiting_for(played: LinePlayed, online: Iterable[Present]) -> list[str]:
    """The connected players a structured round still waits for, by name (none: the
    Keeper answers now). Empty for a line that opened no round."""
    if played.round_actors is None:
        return []
    return [m.name for m in online if m.role == "player" and m.member_id not in played.round_actors]


def round_of(played: LinePlayed) -> OpenRound:
    """The round a line of a structured room is part of (`waiting_for` names players)."""
    return OpenRound(played.round_opened_after, played.actor, played.keeper_locale, played.round_seconds)


@dataclass(frozen=True)
class RoundAnswer:
    """What the Keeper's answer to a round whose time is up needs: the language it is
    answered in (the room's when the round opened) and the room's hook scripts."""

    locale: str
    hook_scripts: list[hooks.Script]


def answer_when_due(room_id: int, opened: OpenRound) -> RoundAnswer | None:
    """Whether the Keeper still owes the round an answer now that its time is up (None:
    a Keeper line has answered it since), and what that answer needs."""
    if not selectors.round_still_open(room_id, opened.opened_after):
        return None
    return RoundAnswer(opened.locale, pack_services.room_hook_scripts(room_id))
