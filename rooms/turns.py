"""The input pipeline of a joined member: commands, story lines, one turn at a time.

The session has already checked the length cap and the rate limit. Here the input
becomes a turn: it waits for the room's turn (FIFO across every process), then a
command is answered or an utterance is stored and broadcast, and every viewer gets a
fresh `state`. The AI Keeper's branch joins this pipeline with its issue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from channels.db import database_sync_to_async

from keeper import commands
from rooms import coordination, hub, services
from rooms.models import Audience, Room, Speaker, TranscriptEntry, TurnEvent


@dataclass(frozen=True)
class TurnContext:
    """Who is acting, and how to reach only them."""

    room_id: int
    member: coordination.Member
    locale: str
    send_private: Callable[[dict], None]
    queued_notice: Callable[[], None]


def _store_utterance(room_id: int, member: coordination.Member, text: str) -> TranscriptEntry:
    return services.transcript_append(
        room=Room(pk=room_id),
        speaker=Speaker.PLAYER,
        name=member.name,
        member_id=member.member_id,
        text=text,
    )


def _record_events(room_id: int, reply: commands.CommandReply, member_id: str) -> list[TurnEvent]:
    return services.turn_events_record(
        room=Room(pk=room_id),
        events=[
            (event.frame, Audience.KEEPERS, member_id)
            if event.keepers_only
            else (event.frame, Audience.EVERYONE, "")
            for event in reply.events
        ],
    )


def _dispatch(text: str, caller: commands.Caller) -> tuple[commands.CommandReply | None, list[TurnEvent]]:
    reply = commands.dispatch(text, caller)
    if reply is None or not reply.events:
        return reply, []
    return reply, _record_events(caller.room_id, reply, caller.member_id)


async def _answer_command(
    context: TurnContext, text: str, reply: commands.CommandReply, events: list
) -> None:
    # A command's echo is the caller's alone: its arguments (an API key, say) never
    # reach the room or the transcript.
    context.send_private(_line(Speaker.PLAYER, text, name=context.member.name))
    for event in events:
        await hub.publish(
            context.room_id,
            event.frame,
            audience=event.audience,
            member_id=event.member_id,
            row=("event", event.id),
        )
    answer = _line(Speaker.SYSTEM, reply.text)
    if reply.private:
        context.send_private(answer)
    else:
        await hub.publish(context.room_id, answer)


def _line(speaker: str, text: str, *, name: str = "") -> dict:
    frame = {
        "type": "narrative",
        "id": services.new_frame_id(),
        "speaker": speaker,
        "text": text,
        "format": "plain",
    }
    if name:
        frame["name"] = name
    return frame


async def run_input(context: TurnContext, text: str) -> None:
    """Play one accepted input as a turn of the room."""

    async def on_queued() -> None:
        context.queued_notice()

    caller = commands.Caller(
        room_id=context.room_id,
        member_id=context.member.member_id,
        name=context.member.name,
        is_keeper=context.member.role == "keeper",
        locale=context.locale,
    )
    async with coordination.shared().room_turn(context.room_id, context.member.name, on_queued):
        reply, events = await database_sync_to_async(_dispatch)(text, caller)
        if reply is not None:
            await _answer_command(context, text, reply, events)
        else:
            entry = await database_sync_to_async(_store_utterance)(context.room_id, context.member, text)
            await hub.publish(context.room_id, entry.as_frame(), row=("entry", entry.id))
        await hub.publish_state_refresh(context.room_id, reset=bool(reply and reply.reset))
