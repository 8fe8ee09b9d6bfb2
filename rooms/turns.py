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
from rooms.models import Room, Speaker, TranscriptEntry


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


async def run_input(context: TurnContext, text: str) -> None:
    """Play one accepted input as a turn of the room."""

    async def on_queued() -> None:
        context.queued_notice()

    async with coordination.shared().room_turn(context.room_id, context.member.name, on_queued):
        reply = commands.dispatch(text, locale=context.locale)
        if reply is not None:
            # A command's echo is the caller's alone: its arguments (an API key, say)
            # never reach the room or the transcript.
            echo = {
                "type": "narrative",
                "id": services.new_frame_id(),
                "speaker": Speaker.PLAYER,
                "name": context.member.name,
                "text": text,
                "format": "plain",
            }
            answer = {
                "type": "narrative",
                "id": services.new_frame_id(),
                "speaker": Speaker.SYSTEM,
                "text": reply.text,
                "format": "plain",
            }
            context.send_private(echo)
            if reply.private:
                context.send_private(answer)
            else:
                await hub.publish(context.room_id, answer)
        else:
            entry = await database_sync_to_async(_store_utterance)(context.room_id, context.member, text)
            await hub.publish(context.room_id, entry.as_frame(), row=("entry", entry.id))
        await hub.publish_state_refresh(context.room_id)
