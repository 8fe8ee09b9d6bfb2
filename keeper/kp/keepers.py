"""Which Keeper answers a room: nobody when its keeper turned the bot off (a human
narrates); else the configured model; else, in a room playing the sample adventure,
the sample Keeper; else the offline Keeper. Read at every turn, so a switch needs no
restart."""

from __future__ import annotations

from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.db import connection

from keeper.kp.offline import OfflineKeeper
from keeper.kp.sample import SampleKeeper, can_start, plays_sample, room_is_empty
from keeper.llm import config as llm_config
from keeper.llm.client import ChatModel, client_for
from keeper.llm.providers import SAMPLE_ADVENTURE
from keeper.llm.subscribed import SubscribedChat
from keeper.models import TableSettings


async def offline_keeper_plays(room_id: int) -> bool:
    """Whether no usable model is configured for the room, so an offline Keeper (the
    sample adventure's, or the phrasebook's) plays."""
    config = await database_sync_to_async(llm_config.resolve)(room_id)
    return not config.usable


async def model_for_room(room_id: int, member_id: str = "", locale: str = "") -> tuple[ChatModel, int]:
    """The model that answers this room's lines while its bot is on (`bot_on`, which the
    turn reads with the line it stores), and its context window (0: none). The room's
    own model choice, else the server's."""
    config = await database_sync_to_async(llm_config.resolve)(room_id)
    if config.usable and config.subscription:
        return SubscribedChat(room_id, config), config.context_window
    if config.usable:
        return client_for(config), config.context_window
    if await database_sync_to_async(plays_sample)(room_id):
        return SampleKeeper(room_id, member_id, locale), 0
    return OfflineKeeper(room_id, member_id, locale), 0


def bot_on(room_id: int) -> bool:
    """Whether a Keeper bot answers the room (`.bot on`, the default). A read only: a
    room without settings yet gets none made here (joins ask this)."""
    # A plain query: every line of play asks, and the ORM cost more than the query.
    meta = TableSettings._meta
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {meta.get_field('bot').column} FROM {meta.db_table} "
            f"WHERE {meta.get_field('room').column} = %s",
            [room_id],
        )
        chosen = cursor.fetchone()
    return True if chosen is None else bool(chosen[0])


@dataclass(frozen=True)
class TurnRule:
    """How the room's lines of play are answered (`bot_on`, and the turn mode), and the
    language its keepers chose (`.language`; "" when none)."""

    bot: bool = True
    structured: bool = False
    round_seconds: int = 60
    language: str = ""


# The `TableSettings` fields a `TurnRule` is read from, in `turn_rule_from`'s order.
TURN_RULE_FIELDS = ("bot", "turn_mode", "round_seconds", "language")


def turn_rule_from(chosen: tuple | None) -> TurnRule:
    """The `TurnRule` of a room whose settings' `TURN_RULE_FIELDS` are `chosen` (None:
    the room has no settings yet). Every line of play reads them with its key
    (`keeper.characters.key_at_the_table`)."""
    if chosen is None:
        return TurnRule()
    return TurnRule(bool(chosen[0]), chosen[1] == "structured", int(chosen[2]), chosen[3] or "")


async def demo_offered(room_id: int) -> bool:
    """Whether a keeper joining now is offered the sample adventure (`demo`): the
    offline Keeper plays and the room is completely empty, or the keepers chose the
    sample adventure as the room's model and no module has begun."""
    return await database_sync_to_async(_demo_offered)(room_id)


def _demo_offered(room_id: int) -> bool:
    config = llm_config.resolve(room_id)
    if config.usable:
        return False
    if config.chat_model == SAMPLE_ADVENTURE:
        return can_start(room_id)
    return room_is_empty(room_id)


async def images_configured(room_id: int) -> bool:
    """Whether an image endpoint is configured for the room (the `imagegen` feature)."""
    return (await database_sync_to_async(llm_config.imagegen)(room_id)).configured
