"""The SideQuest contract's client messages, validated before anything acts on them
(`loreweaver/wire/sidequest.py` is the carrier that speaks it): `{type, payload,
player_id}`, with the payloads this server reads. Text is capped as on the other
carrier."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_ACTION_CHARS = 2000
_Text = Annotated[str, StringConstraints(max_length=MAX_ACTION_CHARS)]
_Name = Annotated[str, StringConstraints(max_length=64)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class Connect(_Strict):
    event: Literal["connect"]
    player_name: _Name = ""
    genre: _Name = ""
    world: _Name = ""
    key: Annotated[str, StringConstraints(max_length=256)] | None = None
    # The current client names its game by slug; a freshly loaded page's connect also
    # names the last `seq` it has seen (whether it is given is what the carrier reads).
    game_slug: Annotated[str, StringConstraints(max_length=128)] | None = None
    last_seen_seq: int = Field(default=0, ge=0)


class Action(_Strict):
    action: _Text
    aside: bool = False


class Creation(_Strict):
    phase: _Name = ""
    choice: _Text = ""
    # `back` returns to the previous scene; `edit` to the scene of the confirmation's row
    # `target_step` (0-based; the contract-era client spells it `targetStep`).
    action: Literal["", "back", "edit"] = ""
    target_step: int | None = Field(default=None, ge=0, le=100)
    targetStep: int | None = Field(default=None, ge=0, le=100)  # noqa: N815  (the client's spelling)

    @property
    def target(self) -> int | None:
        """The scene an `edit` returns to, however the client spelled it."""
        return self.target_step if self.target_step is not None else self.targetStep


class JournalRequest(_Strict):
    category: Literal["Lore", "Place", "Person", "Quest", "Ability"] | None = None
    sort_by: Literal["time", "category"] = "time"


class Seat(_Strict):
    character_slot: _Name = ""


class Unplayable(_Strict):
    """A message for something this table has no such thing as (confrontations and their
    dice, yielding from them): answered with a notice (docs/sidequest.md)."""

    kind: str = ""


class Envelope(_Strict):
    type: Literal[
        "PLAYER_ACTION",
        "SESSION_EVENT",
        "CHARACTER_CREATION",
        "VOICE_SIGNAL",
        "JOURNAL_REQUEST",
        "PLAYER_SEAT",
        "YIELD",
        "DICE_THROW",
        "BEAT_SELECTION",
    ]
    payload: dict = Field(default_factory=dict)
    player_id: str = ""


_PAYLOADS = {
    "SESSION_EVENT": Connect,
    "PLAYER_ACTION": Action,
    "CHARACTER_CREATION": Creation,
    "JOURNAL_REQUEST": JournalRequest,
    "PLAYER_SEAT": Seat,
}
_UNPLAYABLE = ("YIELD", "DICE_THROW", "BEAT_SELECTION")


def parse(text: str) -> Connect | Action | Creation | JournalRequest | Seat | Unplayable | None:
    """The message in `text`, its payload validated (None: a type this server keeps
    nothing of); raises pydantic's ValidationError naming what is wrong."""
    envelope = Envelope.model_validate_json(text)
    if envelope.type in _UNPLAYABLE:
        return Unplayable(kind=envelope.type)
    model = _PAYLOADS.get(envelope.type)
    return model.model_validate(envelope.payload) if model else None


class NewGame(_Strict):
    """The current client's `POST /api/games`."""

    genre_slug: _Name
    world_slug: _Name
    mode: Literal["solo", "multiplayer"]
    player_name: _Name | None = None
    force_new: bool = False


def parse_new_game(body: bytes) -> NewGame:
    """The request in `body`; raises pydantic's ValidationError naming what is wrong
    (also for a body that is not JSON)."""
    return NewGame.model_validate_json(body or b"null")
