"""The keeper's table commands: `.reset [chars|all]` then `.reset confirm`, `.language`,
`.save [name]` and `.save load <name>` (full-room checkpoints in the backup format)."""

from __future__ import annotations

import dataclasses
import datetime
import functools
from pathlib import Path

from django.utils import timezone

from base.i18n import _
from keeper.commands import Caller, CommandReply, FollowUp, command, keeper_refusal
from keeper.models import TableSettings
from rooms import backups
from rooms.models import Room

CONFIRM_WINDOW = datetime.timedelta(seconds=60)


@command(
    "reset",
    help=_("start over: .reset [chars|all], then .reset confirm"),
    keeper_only=True,
)
def reset(arguments: str, caller: Caller) -> CommandReply:
    settings = TableSettings.of(caller.room_id)
    word = arguments.strip().lower()
    if word == "confirm":
        fresh = settings.pending_reset_at and timezone.now() - settings.pending_reset_at <= CONFIRM_WINDOW
        if not settings.pending_reset or not fresh:
            return CommandReply(caller.say(_("Nothing to confirm: type .reset first.")))
        scope = settings.pending_reset
        settings.pending_reset, settings.pending_reset_at = "", None
        settings.save(update_fields=["pending_reset", "pending_reset_at"])
        backups.room_reset(Room.objects.get(pk=caller.room_id), scope)
        return CommandReply(caller.say(RESET_DONE[scope]), private=False)
    scope = {"": "story", "chars": "chars", "all": "all"}.get(word)
    if scope is None:
        return CommandReply(caller.say(_("Use .reset, .reset chars or .reset all.")))
    settings.pending_reset, settings.pending_reset_at = scope, timezone.now()
    settings.save(update_fields=["pending_reset", "pending_reset_at"])
    return CommandReply(
        caller.say(RESET_WARNINGS[scope])
        + ("" if caller.locale == "zh" else " ")  # Chinese sentences need no space between
        + caller.say(_("Type .reset confirm within 60 seconds to go ahead."))
    )


# What each scope of `.reset` takes, said before it is confirmed and after.
RESET_WARNINGS = {
    "story": _(
        "This erases this room's story and its progress; the characters, the module and the NPCs stay."
    ),
    "chars": _("This erases this room's story and its characters; the module and the NPCs stay."),
    "all": _(
        "This erases everything in this room: the story, the characters, the module, the NPCs and the "
        "media; the keys and the settings stay."
    ),
}
RESET_DONE = {
    "story": _("The story starts over."),
    "chars": _("The story starts over, with no characters."),
    "all": _("The room starts over from nothing."),
}


# A room's language by name, as a reader reads it (the ids are what `.language` takes).
LANGUAGE_NAMES = {"en": _("English"), "zh": _("Chinese")}


@command(
    "language",
    help=_("the room's language: .language (show); keeper: .language en|zh, for every member"),
)
def language(arguments: str, caller: Caller) -> CommandReply:
    """Say the room's language, or (a keeper) choose it: from then on every server line
    of the story is written in it for every member, whatever language they joined with."""
    choice = arguments.strip().lower()
    settings = TableSettings.of(caller.room_id)
    if not choice:
        if not settings.language:
            return CommandReply(
                caller.say(
                    _("No room language is chosen: each member reads in the language they joined with.")
                )
            )
        return CommandReply(
            caller.say(_("Room language: {name}."), name=caller.say(LANGUAGE_NAMES[settings.language]))
        )
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if choice not in LANGUAGE_NAMES:
        return CommandReply(
            caller.say(
                _("No room language is called {choice}: use .language en (English) or .language zh (中文)."),
                choice=choice[:20],
            )
        )
    settings.language = choice
    settings.save(update_fields=["language"])
    # Said in the new language, to the whole room: it is everyone's from this line on.
    now = dataclasses.replace(caller, locale=choice)
    return CommandReply(
        now.say(_("Room language is now {name}."), name=now.say(LANGUAGE_NAMES[choice])),
        private=False,
        room_language=choice,
    )


@command(
    "save",
    help=_("checkpoint: .save [name], .save load <name>"),
    keeper_only=True,
)
def save(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, name = arguments.strip().partition(" ")
    room = Room.objects.get(pk=caller.room_id)
    try:
        if word.lower() == "load":
            try:
                path = backups.backup_file(backups.backup_of(room.pk, name.strip()))
            except backups.BackupError as missing:
                if missing.code != "not_found":
                    raise
                return CommandReply(caller.say(_("No checkpoint called {n}."), n=name.strip()))
            restored = backups.room_restore(path, room.name)
            undo = backups.backup_label(restored.safety) if restored.safety else ""
            return CommandReply(
                caller.say(
                    _(
                        "Checkpoint {n} is loaded. The game as it was is saved as {undo}: "
                        ".save load {undo} brings it back."
                    ),
                    n=backups.backup_label(path),
                    undo=undo,
                ),
                private=False,
            )
        path = backups.new_backup_path(room, arguments.strip() or None)
    except backups.BackupError as refused:
        return CommandReply(caller.say(_("Cannot do that: {why}"), why=str(refused)))
    # The room is read and written after the reply, off the database thread and
    # outside the turn (a room's media can take minutes to copy): its rows in one
    # snapshot, then its blobs. The keeper's own next inputs wait for it.
    return CommandReply(
        caller.say(_("Saving the room as {n}…"), n=path.name),
        follow_up=FollowUp(
            fetch=functools.partial(backups.export_in_worker, room.pk, path=path),
            finish=functools.partial(_saved, path, caller),
        ),
    )


def _saved(path: Path, caller: Caller, written: object) -> CommandReply:
    """The answer once a checkpoint's files are written (or failed to be)."""
    if isinstance(written, Exception):
        why = written.strerror if isinstance(written, OSError) and written.strerror else str(written)
        return CommandReply(
            caller.say(_("The checkpoint {n} could not be written: {why}"), n=path.name, why=why)
        )
    return CommandReply(caller.say(_("Saved as {n}."), n=path.name))


@command("bot", help=_("who narrates: .bot (show), .bot on (a Keeper bot), .bot off (a human keeper)"))
def bot(arguments: str, caller: Caller) -> CommandReply:
    """Show whether a Keeper bot (a model, or the offline Keeper) answers the room's
    lines; a keeper turns it on or off."""
    settings = TableSettings.of(caller.room_id)
    choice = arguments.strip().lower()
    if not choice:
        return CommandReply(caller.say(BOT_STATES[settings.bot]))
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if choice not in ("on", "off"):
        return CommandReply(caller.say(_("Use .bot, .bot on or .bot off.")))
    settings.bot = choice == "on"
    settings.save(update_fields=["bot"])
    return CommandReply(caller.say(BOT_STATES[settings.bot]), private=False)


BOT_STATES = {
    True: _("A Keeper bot answers this table's story lines (a human keeper can take over with .bot off)."),
    False: _(
        "A human keeper narrates this table: players' lines get no bot answer (.bot on brings it back)."
    ),
}


@command(
    "turns",
    help=_("turn taking: .turns (show); keeper: .turns free, .turns structured [seconds]"),
)
def turns(arguments: str, caller: Caller) -> CommandReply:
    """Show or set how lines of play take turns: free (each line is answered), or
    structured (the Keeper answers once every connected player has acted, or when the
    round's time is up)."""
    settings = TableSettings.of(caller.room_id)
    words = arguments.split()
    if not words:
        return CommandReply(_turns_state(settings, caller))
    if not caller.is_keeper:
        return keeper_refusal(caller)
    mode = words[0].lower()
    if mode not in ("free", "structured") or (
        len(words) > 1 and not (words[1].isascii() and words[1].isdigit())
    ):
        return CommandReply(caller.say(_("Use .turns free or .turns structured [seconds].")))
    settings.turn_mode = mode
    if len(words) > 1:
        settings.round_seconds = max(1, min(int(words[1]), 3600))
    settings.save(update_fields=["turn_mode", "round_seconds"])
    return CommandReply(_turns_state(settings, caller), private=False)


def _turns_state(settings: TableSettings, caller: Caller) -> str:
    if settings.turn_mode == "structured":
        return caller.say(
            _(
                "Structured turns: the Keeper answers once every connected player has acted, "
                "or after {seconds} seconds."
            ),
            seconds=settings.round_seconds,
        )
    return caller.say(_("Free turns: the Keeper answers each line of play."))
