"""What the game does with one line of play, decided in one visit to the database.

A turn's input is a dot command (answered, its dice events recorded, the chronicle
kept, the hooks told of a public roll), an aside (shown, never the story), or a line of
play (stored; then the Keeper answers it, a structured round waits for the other
players, or a human keeper's narration is the story). `play_line` does the table's
side and returns what happened (`LinePlayed`); the wire frames and sends it
(`loreweaver/wire/turns.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from base import frames
from keeper import characters, chronicle, commands
from keeper.chronicle import is_aside
from keeper.kp import sample, stage
from keeper.kp.keepers import TURN_RULE_FIELDS, turn_rule_from
from packs import hook_cache, hooks
from packs import services as pack_services
from rooms import selectors, services
from rooms.models import Audience, Speaker, TranscriptEntry, TurnEvent


@dataclass(frozen=True)
class Actor:
    """Who plays the line, as their access key is when the turn starts."""

    member_id: str
    name: str
    role: str


@dataclass
class LinePlayed:
    """What the game did with a line (`play_line`)."""

    actor: Actor
    guided: bool = False  # the sample adventure's guided action: set up apart
    reply: commands.CommandReply | None = None
    events: list[TurnEvent] = dataclasses.field(default_factory=list)
    answer: TurnEvent | None = None  # the reply, kept when the whole table sees it
    entry: TranscriptEntry | None = None  # the stored line of play
    keeper_locale: str = ""  # the room's language, when the Keeper answers the line
    hook_scripts: list[hooks.Script] = dataclasses.field(default_factory=list)
    # A structured round: the members whose lines are in it so far (the Keeper waits
    # for the other connected players), and the room's round time.
    round_actors: frozenset[str] | None = None
    round_seconds: int = 0
    round_opened_after: int = 0  # the last Keeper line before the round
    # Nothing more happens in the room this turn: its closing state can be read now.
    settled: bool = False
    # The room's state stamp as the turn's first read found it, when nothing the turn
    # did writes the room's state (`keeper.state.current_room(stamp=)`).
    state_stamp: int | None = None


def play_line(
    room_id: int, key_id: int, locale: str, text: str, *, demo_set_up: bool = False
) -> LinePlayed | None:
    """Play `text` for the holder of key `key_id` (None when the key was revoked or
    moved to another room): the command answered, or the line stored, with the
    chronicle and the hooks' part decided. `locale` is the caller's language; the
    room's, once its keeper chose one, is everyone's (replies, the Keeper's answer)."""
    # A line of play, or a command that keeps the room's state (a roll), leaves it as it
    # is: its chronicle entry takes the scene and the clock read here, with the key, and
    # its closing `state` the state stamp read with them.
    # Where the hook scripts are not kept between turns, whether the room has any is
    # read with the key too (most rooms have none, and then none are read).
    at_the_table = characters.key_at_the_table(
        key_id,
        settings_fields=TURN_RULE_FIELDS,
        with_story=commands.keeps_state(text),
        with_hooks=not hook_cache.kept_here(),
    )
    if at_the_table is None or at_the_table.member.room_id != room_id:
        return None
    holder = at_the_table.member
    actor = Actor(holder.member_id, holder.name, holder.role)
    if sample.is_guided_action(text) and not demo_set_up:
        return LinePlayed(actor, guided=True)
    # Read here, not only at the connection: a `.language` from another process may
    # not have reached this member's session yet. (The rule, with the language, is read
    # with the key; a command changes the rule only for the lines after it.)
    rule = turn_rule_from(at_the_table.settings)
    chosen = rule.language
    locale = chosen or locale
    # The chronicle is written in the room's language: the keepers' choice, else the server's.
    written_in = chosen or chronicle.server_language()
    caller = commands.Caller(
        room_id=room_id,
        member_id=actor.member_id,
        name=actor.name,
        is_keeper=actor.role == "keeper",
        locale=locale,
        table_name=at_the_table.table_name,
    )
    reply = commands.dispatch(text, caller)
    if reply is not None:
        # As the command left it (`.language`).
        written_in = reply.room_language or written_in
        return _command_played(room_id, actor, caller, text, reply, written_in, at_the_table)
    stamp = at_the_table.state_stamp
    if is_aside(text):  # out of character: shown to the table, never the story, never answered
        entry = _store_line(room_id, actor, text, bot=True)
        return LinePlayed(actor, entry=entry, settled=True, state_stamp=stamp)
    played = LinePlayed(actor, entry=_store_line(room_id, actor, text, bot=rule.bot), state_stamp=stamp)
    played.hook_scripts = pack_services.room_hook_scripts(room_id, none_as_of=at_the_table.hooks_none_as_of)
    if rule.bot:
        played.keeper_locale = locale
        if rule.structured:
            played.round_opened_after, played.round_actors = selectors.open_round(room_id)
            played.round_seconds = rule.round_seconds
            played.settled = True
    else:  # a human keeper narrates: the line is the turn (a keeper's line is told once)
        assert played.entry is not None
        narrated = played.entry.speaker == Speaker.KEEPER
        said = chronicle.Turn(actor.name, "", text) if narrated else chronicle.Turn(actor.name, text)
        chronicle.record(
            room_id, said, last_line_id=played.entry.id, language=written_in, story=at_the_table.story
        )
        played.settled = True
    return played


def public_rolls(events: list[TurnEvent]) -> list[dict]:
    """The dice every member saw among a turn's events, as the hooks and the chronicle
    are told of them."""
    return _public_rolls((event.frame, event.audience) for event in events)


def _public_rolls(shown: Iterable[tuple[dict, str]]) -> list[dict]:
    """`public_rolls` of a turn's events as `(frame, audience)`, stored or about to be."""
    return [
        stage.public_roll(frame)
        for frame, audience in shown
        if audience == Audience.EVERYONE and frame.get("type") == "dice"
    ]


def _command_played(
    room_id: int,
    actor: Actor,
    caller: commands.Caller,
    text: str,
    reply: commands.CommandReply,
    written_in: str,
    at_the_table: characters.KeyAtTheTable,
) -> LinePlayed:
    # The rolls and the answer the table sees after them, kept in one statement, with the
    # turn's chronicle entry in it too on Postgres.
    answer = _answer_line(reply)
    rows = _event_rows(reply, actor.member_id, answer)
    rolls = _public_rolls((frame, audience) for frame, audience, _ in rows[: len(reply.events)])
    kept = _chronicle_entry(room_id, actor, text, reply, rows, rolls, caller.locale, written_in, at_the_table)
    recorded = services.turn_events_record(room=room_id, events=rows, along=kept)
    played = LinePlayed(
        actor,
        reply=reply,
        events=recorded[: len(reply.events)],
        answer=recorded[-1] if answer else None,
        state_stamp=at_the_table.state_stamp,  # read when the command keeps the state
    )
    if rolls:  # a typed roll is a turn the hooks hear of
        # The room had none when the turn began, unless the command wrote some.
        played.hook_scripts = pack_services.room_hook_scripts(
            room_id, none_as_of=at_the_table.hooks_none_as_of
        )
    played.settled = reply.follow_up is None and not reply.media
    return played


def _chronicle_entry(
    room_id: int,
    actor: Actor,
    text: str,
    reply: commands.CommandReply,
    rows: list[tuple[dict, str, str]],
    rolls: list[dict],
    caller_locale: str,
    written_in: str,
    at_the_table: characters.KeyAtTheTable,
) -> tuple[str, list] | None:
    """The chronicle entry of a command with rolls (`rows`, the reply's events first; a
    hidden roll for the keepers only counts), as the statement that keeps it; None for
    a command without."""
    events = rows[: len(reply.events)]
    if not events:
        return None
    hidden = [frame for frame, audience, _ in events if audience != Audience.EVERYONE]
    # The chronicle is in the room's language: a reply in another one is left to the
    # roll lines, which the chronicle writes in the room's words.
    foreign = bool(rolls) and caller_locale != written_in
    said = "" if reply.private or foreign else reply.text
    # A reply kept tells its public rolls already: the roll lines would say them twice.
    told = [] if said else rolls
    # A command the table saw nothing of (`.rh`) leaves the keepers their hidden roll and
    # the table no trace: not even the line typed.
    line = (reply.echo or text) if len(hidden) < len(events) else ""
    # The turn is the roller's: under their character's name when they play one, as
    # their dice are.
    roller = reply.roller or characters.table_name(room_id, actor.member_id, actor.name)
    return chronicle.entry_insert(
        room_id,
        chronicle.Turn(roller, line, said, told, [], hidden_rolls=hidden),
        # After the line the events follow: the room's latest, as their insert finds it.
        last_line_id=chronicle.LATEST_LINE,
        language=written_in,
        story=at_the_table.story,  # read with the key when the command keeps the state
    )


def record_answer(room_id: int, reply: commands.CommandReply) -> TurnEvent | None:
    """A command's answer to the whole table (`.inv give`, `.quest add`, `.coc`), kept as
    an event of its turn, after its rolls, as it is shown live: a SideQuest client's
    reloaded page is told it again (`rooms.selectors.replay_for`). None for a reply only
    the caller sees, which is never kept."""
    line = _answer_line(reply)
    return services.turn_event_record(room=room_id, frame=line) if line else None


def _answer_line(reply: commands.CommandReply) -> dict | None:
    """The system line a command's answer to the whole table is kept as; None for a
    reply only the caller sees."""
    if reply.private or not reply.text:
        return None
    return frames.narrative(services.new_frame_id(), Speaker.SYSTEM, reply.text)


def finish_follow_up(
    room_id: int, work: commands.FollowUp, fetched: object
) -> tuple[commands.CommandReply, TurnEvent | None]:
    """A command's slow work done (`FollowUp.finish` with what came back): its reply,
    and its answer kept as `record_answer` keeps one."""
    reply = work.finish(fetched)
    return reply, record_answer(room_id, reply)


def _store_line(room_id: int, actor: Actor, text: str, *, bot: bool) -> TranscriptEntry:
    """A line of play. While a human keeper narrates (`.bot off`), a keeper's line is the
    Keeper's narration; otherwise every line is a player's."""
    narrates = actor.role == "keeper" and not bot
    return services.transcript_append(
        room=room_id,
        speaker=Speaker.KEEPER if narrates else Speaker.PLAYER,
        name=actor.name,
        member_id=actor.member_id,
        text=text,
    )


def _event_rows(
    reply: commands.CommandReply, member_id: str, answer: dict | None
) -> list[tuple[dict, str, str]]:
    """The reply's rolls as turn events to keep, `(frame, audience, member_id)`, then its
    `answer` line when there is one."""
    rows = [
        (event.frame, Audience.KEEPERS, member_id)
        if event.keepers_only
        else (event.frame, Audience.EVERYONE, "")
        for event in reply.events
    ]
    if answer is not None:
        rows.append((answer, Audience.EVERYONE, ""))
    return rows
