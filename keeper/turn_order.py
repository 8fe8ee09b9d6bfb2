"""Initiative: `.ri`, `.ri list`, `.ri next`, `.ri clear` (docs/rules.md)."""

from __future__ import annotations

from base.i18n import _
from keeper import game
from keeper.commands import Caller, CommandReply, command, keeper_refusal


def _listing(caller: Caller) -> str:
    entries = game.initiative_order(caller.room_id)
    if not entries:
        return caller.say(_("No initiative rolled yet."))
    return "\n".join(f"{'▶ ' if e.current else '  '}{e.name} {e.value}" for e in entries)


@command(
    "ri",
    "init",
    help=_("initiative: .ri, .ri list, .ri next / .ri clear (keeper)"),
)
def initiative(arguments: str, caller: Caller) -> CommandReply:
    word = arguments.strip().lower()
    if word == "list":
        return CommandReply(_listing(caller))
    if word in ("next", "clear"):
        if not caller.is_keeper:
            return keeper_refusal(caller)
        if word == "clear":
            game.initiative_clear(caller.room_id)
            return CommandReply(caller.say(_("Initiative cleared.")), private=False)
        following = game.initiative_next(caller.room_id)
        if following is None:
            return CommandReply(caller.say(_("No initiative rolled yet.")))
        return CommandReply(caller.say(_("{name} acts now."), name=following.name), private=False)
    try:
        rolled = game.initiative_roll(game.Actor.member(caller.room_id, caller.member_id, caller.name))
    except game.GameError as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(_("{name} rolls initiative: {value}"), name=rolled.name, value=rolled.value),
        private=False,
        events=rolled.events,
    )
