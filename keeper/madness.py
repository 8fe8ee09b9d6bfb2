"""CoC 7e bouts of madness: `.ti` (temporary, in real time) and `.li` (long-term,
summary) tables, rolled on 1d10 (docs/rules.md, "The command dialect"). Texts are this project's own."""

from __future__ import annotations

from base import frames
from base.i18n import _
from keeper.characters import table_name
from keeper.commands import Caller, CommandReply, DiceEvent, command
from keeper.dice.roller import roller

TEMPORARY = [
    _("Amnesia: no memory of anything since the last safe place, for 1d10 rounds."),
    _("Psychosomatic blindness, deafness or paralysis for 1d10 rounds."),
    _("Violence: lashes out at friend and foe alike for 1d10 rounds."),
    _("Paranoia: trusts no one for 1d10 rounds; every ally is a traitor."),
    _("Fixation on a significant person; acts as if they were here, for 1d10 rounds."),
    _("Faints and stays down for 1d10 rounds."),
    _("Flees in panic by any means, for 1d10 rounds."),
    _("Hysterics: laughing, weeping or screaming uncontrollably for 1d10 rounds."),
    _("A new phobia grips them; they act on it for 1d10 rounds."),
    _("A new mania seizes them; they indulge it for 1d10 rounds."),
]
LONG_TERM = [
    _("Amnesia: wakes somewhere unknown 1d10 hours later, remembering only who they are."),
    _("Robbed: comes to 1d10 hours later, without valuables."),
    _("Battered: 1d10 hours later, bruised and hurt, with no memory of how."),
    _("Violence: an explosion of violence; they come to 1d10 hours later amid the results."),
    _("Ideology: acts on a belief in the most extreme way for 1d10 hours."),
    _("Significant people: drives to reach someone dear, for 1d10 hours."),
    _("Institutionalised: wakes 1d10 hours later in a hospital ward or a cell."),
    _("Flees in panic: 1d10 hours later, far away and lost."),
    _("A new phobia, and 1d10 hours lost to it."),
    _("A new mania, and 1d10 hours lost to it."),
]


def _bout(table: list[str], caller: Caller, label: str) -> CommandReply:
    face = roller().die(10)
    duration = roller().die(10)
    who = table_name(caller.room_id, caller.member_id, caller.name)
    text = caller.say(
        _("{who} — {label} ({face}): {effect} (1d10 = {duration})"),
        who=who,
        label=caller.say(label),
        face=face,
        effect=caller.say(table[face - 1]),
        duration=duration,
    )
    frame = frames.dice(who, "roll", "1d10", [face], face)
    return CommandReply(text, private=False, events=[DiceEvent(frame)])


@command("ti", help=_("temporary madness table"))
def temporary(arguments: str, caller: Caller) -> CommandReply:
    return _bout(TEMPORARY, caller, _("temporary madness"))


@command("li", help=_("long-term madness table"))
def long_term(arguments: str, caller: Caller) -> CommandReply:
    return _bout(LONG_TERM, caller, _("long-term madness"))
