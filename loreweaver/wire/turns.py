"""The input pipeline of a joined member: commands, story lines, one turn at a time.

The session has already checked the length cap and the rate limit. Here the input
becomes a turn: it waits for the room's turn (FIFO across every process), then a
command is answered, or an utterance is stored, broadcast and answered by the AI
Keeper (`turn_status busy` ... `idle` around it), and every viewer gets a fresh
`state`. `RoomSink` is how the Keeper's turn reaches the room.

The game decides what happens (`keeper/turns.py`, `keeper/turn_flow.py`: the line,
the sample adventure, the hooks, the chronicle; `keeper/rounds.py`: structured
rounds); this module frames what it decided and sends it. A structured round's
deadline is kept where every process sees it (`coordination`), and any live process
closes a round whose time is up (`close_round_in_time`, from `round_clock.py`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from channels.db import database_sync_to_async

from base import failpoints, frames, metrics
from keeper import commands, rounds, turn_flow
from keeper.kp import stage, tools
from keeper.kp.keepers import model_for_room
from keeper.kp.turn import KpTurn, run_kp_turn
from keeper.turn_hooks import TurnHooks
from keeper.turns import Actor, LinePlayed, finish_follow_up, play_line, public_rolls
from loreweaver.wire import commits, coordination, hub, media_channel
from loreweaver.wire.protocol.messages import error_message, notice
from loreweaver.wire.seats import log_failure
from media_store.selectors import stored_item
from packs import hooks
from rooms import services
from rooms.choices import Audience, Speaker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnContext:
    """Who is acting, and how to reach only them."""

    room_id: int
    member: coordination.Member
    key_id: int
    locale: str
    send_private: Callable[[dict], None]
    # A private frame refusing what the member asked, with the game's reason code.
    send_refusal: Callable[[dict, str], None]
    queued_notice: Callable[[], None]
    # The connection to tell when the game is done with each input (`room.input_done`),
    # empty when its carrier tells no turn's end of its own.
    tell_done: str = ""
    input_number: int = 0  # which of that connection's inputs this is (`MemberInputs.taken`)


def play_in_database(
    context: TurnContext, text: str, *, demo_set_up: bool = False
) -> tuple[LinePlayed, hub.Snapshot | None] | None:
    """The database side of a turn, in one visit to the database (on its thread, or
    for brief work on the event loop's: `commits.py`): the game plays the line
    (`keeper.turns.play_line`; None when the key was revoked), and the room is read for
    the closing `state` when the turn ends there."""
    played = play_line(context.room_id, context.key_id, context.locale, text, demo_set_up=demo_set_up)
    if played is None:
        return None
    return played, hub.take_snapshot(context.room_id, played.state_stamp) if played.settled else None


async def _answer_command(context: TurnContext, text: str, played: LinePlayed, batch: hub.Batch) -> None:
    assert played.reply is not None
    # A command's echo is the caller's alone: its arguments (an API key, say) never
    # reach the room or the transcript.
    context.send_private(_line(Speaker.PLAYER, played.reply.echo or text, name=context.member.name))
    for event in played.events:
        await hub.publish(
            context.room_id,
            event.frame,
            audience=event.audience,
            member_id=event.member_id,
            row=("event", event.id),
            into=batch,
        )
    await _answer(context, played.reply, batch, played.answer)


class _Kept(Protocol):
    """A row the game kept for the whole table (`TurnEvent`): its frame and its id."""

    id: int
    frame: dict


async def _answer(
    context: TurnContext, reply: commands.CommandReply, batch: hub.Batch, kept: _Kept | None = None
) -> None:
    """A command's reply: its live frames, the media it stored, its text (the line
    `kept` when the whole table sees it). Room frames gather in `batch`; it is sent
    first whenever something goes out another way, so every member sees the turn in
    order."""
    if reply.room_language:  # before the reply, which is written in the new language
        await hub.publish_room_language(context.room_id, reply.room_language, into=batch)
    for frame in reply.live:
        await hub.publish(context.room_id, frame, into=batch)
    if reply.panels_changed:
        await hub.publish_manifests(context.room_id, into=batch)
    if reply.media:
        await hub.flush(context.room_id, batch)
    for item_id in reply.media:
        await media_channel.announce(context.room_id, await database_sync_to_async(stored_item)(item_id))
    if kept is not None:
        await hub.publish(context.room_id, kept.frame, row=("event", kept.id), into=batch)
    elif reply.private and reply.refused:
        await hub.flush(context.room_id, batch)
        context.send_refusal(_line(Speaker.SYSTEM, reply.text), reply.refused)
    elif reply.private:
        await hub.flush(context.room_id, batch)
        context.send_private(_line(Speaker.SYSTEM, reply.text))
    else:
        await hub.publish(context.room_id, _line(Speaker.SYSTEM, reply.text), into=batch)
    if reply.model_changed:
        await hub.publish_model_changed(context.room_id, into=batch)


async def _follow_up(context: TurnContext, work: commands.FollowUp) -> None:
    """A command's slow work, after its first reply and outside the room's turn, so the
    table plays on while a model drafts or an endpoint draws."""
    try:
        if inspect.iscoroutinefunction(work.fetch):  # waits without holding a thread
            fetched: object = await work.fetch()
        else:
            fetched = await asyncio.to_thread(work.fetch)
    except Exception as failure:
        log.warning("room=%s a command's follow-up failed: %s", context.room_id, failure)
        fetched = failure
    reply, kept = await database_sync_to_async(finish_follow_up)(context.room_id, work, fetched)
    batch: hub.Batch = []
    await _answer(context, reply, batch, kept)
    await hub.publish_state_refresh(context.room_id, into=batch)
    await hub.flush(context.room_id, batch)
    if reply.follow_up is not None:  # the next step of the same work (a sign-in's poll)
        await _follow_up(context, reply.follow_up)


# Follow-ups that run beside their caller's next inputs (`FollowUp.background`).
_background: set[asyncio.Task] = set()


async def _waiting_for(context: TurnContext, played: LinePlayed) -> list[str]:
    """The connected players the structured round still waits for (none: answer now)."""
    if played.round_actors is None:
        return []
    return rounds.waiting_for(played, await coordination.shared().online_members(context.room_id))


async def _keep_round_deadline(room_id: int, played: LinePlayed) -> None:
    """Keep the round's deadline where every process sees it (its first line's time)."""
    opened = rounds.round_of(played)
    await coordination.shared().round_deadline_set(
        room_id, opened.round_id, opened.as_record(), opened.seconds
    )


async def close_round_in_time(room_id: int, due: dict) -> None:
    """Answer a structured round whose time is up (`due`: as `coordination.rounds_due`
    found it), on whichever process found it, unless a Keeper line answered it
    meanwhile. Under the room's turn, where the round's deadline is written and
    cleared, so a round answered or replaced meanwhile is left alone."""
    shared = coordination.shared()
    opened = rounds.OpenRound.from_record(due["record"])
    async with shared.room_turn(room_id, opened.actor.name):
        if await shared.round_deadline(room_id) != due:
            return  # answered by its last player, or closed by another process
        try:
            answer = await database_sync_to_async(rounds.answer_when_due)(room_id, opened)
            if answer is not None:
                member = coordination.Member(opened.actor.member_id, opened.actor.name, opened.actor.role)
                try:
                    await _keeper_answers(room_id, member, answer.locale, "", answer.hook_scripts)
                except Exception as exc:
                    log_failure(exc, "room=%s the Keeper could not answer the round", room_id)
                await hub.publish_state_refresh(room_id)
        finally:
            await shared.round_deadline_clear(room_id)


async def _after_turn(
    room_id: int,
    locale: str,
    room_hooks: TurnHooks | None,
    seen: stage.TurnSeen | None = None,
    presented: list[dict] | None = None,
    batch: hub.Batch | None = None,
) -> None:
    """Turn flow steps 8 and 9, as the game decided them (`turn_flow.after_turn`): what
    the hooks narrated, the Stage Director's frames, then the hooks' `ui` frames, then
    their `panel_event`s (each only to the members whose own panels include it), and
    what went wrong with a hook to the keepers alone. Never raises."""
    done = await turn_flow.after_turn(room_id, locale, room_hooks, seen, presented)
    if done.failure is not None:
        log_failure(done.failure, "room=%s the room's hooks could not run", room_id)
    for entry in done.narrations:
        await hub.publish(room_id, entry.as_frame(), row=("entry", entry.id), into=batch)
    for frame in done.ui_frames:
        await hub.publish(room_id, frame, into=batch)
    for frame in done.panel_frames:
        await hub.publish_panel_event(room_id, frame, into=batch)
    for frame in done.keeper_warnings:
        await hub.publish(room_id, frame, audience=Audience.KEEPERS, into=batch)


def _turn_hooks(context: TurnContext, scripts: list[hooks.Script], line: str) -> TurnHooks | None:
    """The turn's hooks, None (and nothing to start) when the room has no scripts."""
    return turn_flow.turn_hooks(context.room_id, scripts, context.member.name, line, context.locale)


def _line(speaker: str, text: str, *, name: str = "") -> dict:
    return frames.narrative(services.new_frame_id(), speaker, text, name=name)


class RoomSink:
    """The room side of a Keeper turn: records what must be replayed, then publishes."""

    def __init__(self, room_id: int, actor: str, line: str = "") -> None:
        self.room_id = room_id
        self.actor = actor
        self.announced = False
        self.seen = stage.TurnSeen(actor, line)  # what the room's hooks hear of the turn
        self.presented: list[dict] = []  # the Stage Director's frames, shown after the narration

    def new_id(self) -> str:
        return services.new_frame_id()

    async def busy(self, activity: str | None = None, round_number: int | None = None) -> None:
        if not self.announced:
            self.announced = True
            await coordination.shared().mark_busy(self.room_id)
        await hub.publish(self.room_id, frames.turn_busy(self.actor, activity, round_number))

    async def idle(self) -> None:
        await hub.publish(self.room_id, frames.turn_idle())

    async def delta(self, draft_id: str, text: str) -> None:
        await hub.publish(self.room_id, frames.narrative_delta(draft_id, Speaker.KEEPER, text))

    async def close_draft(self, draft_id: str, text: str) -> None:
        if not text:  # a discarded draft: closed, never stored
            await hub.publish(
                self.room_id, frames.narrative(draft_id, Speaker.KEEPER, "", text_format="markdown")
            )
            return
        entry = await database_sync_to_async(turn_flow.keep_narration)(self.room_id, text, draft_id)
        self.seen.narrated(text)
        await hub.publish(self.room_id, entry.as_frame(), row=("entry", entry.id))

    async def events(self, events: list[tuple[dict, bool]]) -> None:
        recorded = await database_sync_to_async(turn_flow.keep_keeper_events)(self.room_id, events, self.seen)
        for event in recorded:
            await hub.publish(self.room_id, event.frame, audience=event.audience, row=("event", event.id))

    async def keeper_notice(self, text: str) -> None:
        self.seen.keeper_facts.append(text)
        await hub.publish(self.room_id, frames.system(text), audience=Audience.KEEPERS)

    async def notice(self, text: str) -> None:
        await hub.publish(self.room_id, frames.system(text))

    async def keeper_warning(self, text: str) -> None:
        await hub.publish(self.room_id, frames.system(text, "warn"), audience=Audience.KEEPERS)

    async def warning(self, text: str) -> None:
        await hub.publish(self.room_id, frames.system(text, "warn"))

    async def media(self, item_id: int) -> None:
        await media_channel.announce(self.room_id, await database_sync_to_async(stored_item)(item_id))

    async def present(self, frame: dict) -> None:
        # A title card opens what follows it, so it is shown where the Keeper put it;
        # every other presentation annotates the narration and follows it.
        if any(block.get("kind") == "title_card" for block in frame.get("blocks", [])):
            await hub.publish(self.room_id, frame)
            return
        self.presented.append(frame)


async def _keeper_answers(
    room_id: int,
    member: coordination.Member,
    locale: str,
    line: str,
    scripts: list[hooks.Script],
    *,
    caller_locale: str = "",
) -> None:
    """The Keeper's branch of a turn, when the room's bot is on: busy, the answer, what
    the Stage Director and the hooks show, idle (also after a failure). With the bot off
    (`.bot off`) the turn never comes here: the human keeper narrates. `locale` is the
    room's language, which the Keeper answers in; `caller_locale` the member's own."""
    model, window = await model_for_room(room_id, member.member_id, locale)
    sink = RoomSink(room_id, member.name, line)
    turn = KpTurn(room_id, member.member_id, member.name, locale)
    room_hooks = turn_flow.turn_hooks(room_id, scripts, member.name, line, locale)
    try:
        await run_kp_turn(turn, sink, model, window, room_hooks)
    finally:
        await _after_turn(room_id, caller_locale or locale, room_hooks, presented=sink.presented)
        await sink.idle()
        await _chronicle(room_id, sink.seen)


async def _chronicle(room_id: int, seen: stage.TurnSeen) -> None:
    """Keep the finished turn in the room's chronicle. Never raises: the turn is over."""
    try:
        await database_sync_to_async(turn_flow.chronicle_turn)(room_id, seen)
    except Exception as exc:
        log_failure(exc, "room=%s the turn could not be chronicled", room_id)


async def _announce_cut_off(room_id: int, actor: str, default_locale: str) -> None:
    """A Keeper turn ended with the server process that ran it: its `idle` never came,
    so the table is told here, before the next turn."""
    await hub.publish(room_id, frames.turn_idle())
    locale = await database_sync_to_async(tools.room_locale)(room_id, default_locale)
    await hub.publish(room_id, frames.system(notice("turn_cut_off", locale, actor=actor), "warn"))


async def run_input(context: TurnContext, text: str) -> None:
    """Play one accepted input as a turn of the room.

    The member acts as their access key is when the turn starts (a rename or a role
    change since the join counts; a deleted key's queued inputs are dropped). Once the
    line is committed nothing here reports a failure: broadcasts do not raise, and
    members who missed one catch up from the database.
    """

    async def on_queued() -> None:
        context.queued_notice()

    shared = coordination.shared()
    follow_up = None
    started, kind = time.monotonic(), "line"
    async with shared.room_turn(context.room_id, context.member.name, on_queued):
        failpoints.hit("input.turn")
        if context.room_id in shared.cut_off:
            await _announce_cut_off(context.room_id, shared.cut_off.pop(context.room_id), context.locale)
        # A line or a roll writes a few rows of its own: brief work (`commits.py`).
        work = functools.partial(play_in_database, context, text)
        done = await commits.committed(work, brief=commands.keeps_state(text))
        if done is None:
            return  # the key was revoked: its session is being closed
        played, snapshot = done
        actor = played.actor
        context = dataclasses.replace(
            context, member=coordination.Member(actor.member_id, actor.name, actor.role)
        )
        if played.guided:
            member = context.member
            if not await turn_flow.start_sample_adventure(
                context.room_id, Actor(member.member_id, member.name, member.role), text
            ):
                context.send_private(
                    frames.error("demo_unavailable", error_message("demo_unavailable", context.locale))
                )
                return
            done = await commits.committed(
                functools.partial(play_in_database, context, text, demo_set_up=True)
            )
            if done is None:
                return
            played, snapshot = done
        # The turn's room frames and its closing state go out as one message, except
        # that the line goes at once when the Keeper is about to answer it.
        batch: hub.Batch = []
        try:
            if played.reply is not None:
                await _answer_command(context, text, played, batch)
                follow_up = played.reply.follow_up
                if played.hook_scripts:
                    said = [] if played.reply.private else [played.reply.text]
                    seen = stage.TurnSeen(context.member.name, text, said, public_rolls(played.events))
                    await _after_turn(
                        context.room_id,
                        context.locale,
                        _turn_hooks(context, played.hook_scripts, text),
                        seen,
                        batch=batch,
                    )
            else:
                assert played.entry is not None
                entry = played.entry
                await hub.publish(context.room_id, entry.as_frame(), row=("entry", entry.id), into=batch)
                waiting = await _waiting_for(context, played)
                if waiting:  # a structured round: the Keeper answers when everyone has acted
                    await hub.publish_round(context.room_id, context.member.name, waiting, into=batch)
                    await _keep_round_deadline(context.room_id, played)
                elif played.keeper_locale:
                    snapshot = None  # the Keeper's turn changes the room: read it after
                    if played.round_actors is not None:  # the round is answered now
                        await shared.round_deadline_clear(context.room_id)
                    await hub.flush(context.room_id, batch)
                    try:
                        failpoints.hit("input.keeper")
                        await _keeper_answers(
                            context.room_id,
                            context.member,
                            played.keeper_locale,
                            text,
                            played.hook_scripts,
                            caller_locale=context.locale,
                        )
                    except Exception as exc:
                        # The line is committed and shown: it must not be reported as failed.
                        log_failure(exc, "room=%s the Keeper could not answer", context.room_id)
                        await hub.publish(
                            context.room_id,
                            frames.system(notice("keeper_failed", context.locale), "warn"),
                        )
                elif played.hook_scripts:  # a human keeper narrates: the line is the story
                    narrated = [text] if entry.speaker == Speaker.KEEPER else []
                    seen = stage.TurnSeen(context.member.name, text, narrated)
                    await _after_turn(
                        context.room_id,
                        context.locale,
                        _turn_hooks(context, played.hook_scripts, text),
                        seen,
                        batch=batch,
                    )
            await hub.publish_state_refresh(context.room_id, snapshot=snapshot, into=batch)
            kind = "command" if played.reply is not None else "keeper" if played.keeper_locale else "line"
        finally:
            if context.tell_done:
                await hub.publish_input_done(
                    context.room_id, context.tell_done, context.input_number, into=batch
                )
            # Committed rows are announced even when the turn failed half-way.
            await hub.flush(context.room_id, batch)
            metrics.TURNS.labels(kind).observe(time.monotonic() - started)
    if follow_up is not None and follow_up.background:
        task = asyncio.create_task(_follow_up(context, follow_up))
        _background.add(task)  # kept until done (the loop holds tasks weakly)
        task.add_done_callback(_background.discard)
    elif follow_up is not None:
        await _follow_up(context, follow_up)
