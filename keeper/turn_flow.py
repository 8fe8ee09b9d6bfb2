"""The game's side of a turn around the Keeper's answer: the sample adventure's start,
the Keeper's lines and dice kept, what the room's hooks make of a turn, and the
chronicle.

Each function decides and stores; it returns the rows and frames the wire then sends
(`loreweaver/wire/turns.py`), which knows no model of the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from channels.db import database_sync_to_async

from base import frames
from keeper import chronicle
from keeper.kp import sample, stage, tools
from keeper.kp.keepers import offline_keeper_plays
from keeper.turn_hooks import TurnHooks
from keeper.turns import Actor
from packs import hooks
from rooms import services
from rooms.models import Audience, Speaker, TranscriptEntry, TurnEvent


async def start_sample_adventure(room_id: int, actor: Actor, text: str) -> bool:
    """Set the sample adventure up for its guided action `text`, under the room's turn.
    False (and nothing changed) unless a keeper asks while the offline Keeper plays, in
    a room whose story has not begun a module. Its language is the guided action's."""
    if actor.role != "keeper":
        return False
    if not await offline_keeper_plays(room_id):
        return False
    locale = "zh" if text.strip() == sample.GUIDED_ACTIONS[1] else "en"
    return await database_sync_to_async(sample.demo_setup)(room_id, actor.member_id, actor.name, locale)


def keep_narration(room_id: int, text: str, frame_id: str | None = None) -> TranscriptEntry:
    """Store a line of the Keeper's (markdown): its streamed reply, or what the hooks
    narrated."""
    return services.transcript_append(
        room=room_id, speaker=Speaker.KEEPER, text=text, text_format="markdown", frame_id=frame_id
    )


def keep_keeper_events(
    room_id: int, events: list[tuple[dict, bool]], seen: stage.TurnSeen
) -> list[TurnEvent]:
    """Store the events of a Keeper's step (each frame, and whether only keepers see it)
    and tell `seen` what the table saw of them: hidden rolls, public rolls, NPCs' lines."""
    recorded = services.turn_events_record(
        room=room_id,
        events=[(frame, Audience.KEEPERS if hidden else Audience.EVERYONE, "") for frame, hidden in events],
    )
    for event in recorded:
        if event.audience != Audience.EVERYONE:
            seen.hidden_rolls.append(event.frame)
        elif event.frame.get("type") == "dice":
            seen.rolled(stage.public_roll(event.frame))
        elif event.frame.get("speaker") == Speaker.NPC:
            seen.npc_said(event.frame.get("name", ""), event.frame.get("text", ""))
    return recorded


def turn_hooks(
    room_id: int, scripts: list[hooks.Script], actor: str, line: str, locale: str
) -> TurnHooks | None:
    """The turn's hooks, None (and nothing to start) when the room has no scripts."""
    if not scripts:
        return None
    return TurnHooks(room_id, scripts, actor, line, locale)


@dataclass
class AfterTurn:
    """What a turn's end shows (turn flow steps 8 and 9): the hooks' narration (stored),
    the Stage Director's and the hooks' `ui` frames, their `panel_event`s, the lines
    that tell keepers what went wrong with a hook, and why the hooks could not run."""

    narrations: list[TranscriptEntry] = field(default_factory=list)
    ui_frames: list[dict] = field(default_factory=list)
    panel_frames: list[dict] = field(default_factory=list)
    keeper_warnings: list[dict] = field(default_factory=list)
    failure: Exception | None = None


async def after_turn(
    room_id: int,
    locale: str,
    room_hooks: TurnHooks | None,
    seen: stage.TurnSeen | None = None,
    presented: list[dict] | None = None,
) -> AfterTurn:
    """The end of a turn: the Stage Director's frames (`presented`), then what the hooks
    emitted. A turn the Keeper did not answer (`seen`: a typed roll, a human keeper's
    line) has its hooks fired here, after the fact; what they narrate is a line of its
    own. Never raises: a hook cannot break a turn (`failure` says what went wrong)."""
    done = AfterTurn(ui_frames=list(presented or []))
    lines: list[str] = []
    if room_hooks is not None:
        try:
            if seen is not None:
                await room_hooks.turn_start()
                typed = (seen.line.split() or [""])[0]  # a typed roll's command (`.r`)
                room_hooks.rolls = [stage.hook_roll(roll, typed) for roll in seen.rolls]
                await room_hooks.after_reply("\n\n".join(seen.reply))
                if room_hooks.narrations:
                    lines.append(stage.filtered("\n\n".join(room_hooks.narrations)))
            from_hooks, done.panel_frames = await database_sync_to_async(stage.hook_frames)(
                room_id, room_hooks.emissions()
            )
            done.ui_frames += from_hooks
        except Exception as exc:
            done.failure = exc
    for text in filter(None, lines):
        done.narrations.append(await database_sync_to_async(keep_narration)(room_id, text))
    if room_hooks is not None and room_hooks.problems:
        room_hooks.locale = await database_sync_to_async(tools.room_locale)(room_id, locale)
        done.keeper_warnings = [frames.system(text, "warn") for text in room_hooks.problem_lines()]
    return done


def chronicle_turn(room_id: int, seen: stage.TurnSeen) -> None:
    """Keep a finished Keeper turn in the room's chronicle."""
    chronicle.record(room_id, seen.chronicled())
