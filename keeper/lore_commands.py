"""`.lore`, `.chronicle` and `.recap`: the campaign's memory at the table.

- `.lore list`, `.lore show <title>`, `.lore query <words>` (anyone: players read only
  the lore for everyone), `.lore add <title> | <keyword, keyword> | <content>` (for
  everyone), `.lore secret <title> | <keywords> | <content>` (keepers only) and
  `.lore del <title>` (keepers).
- `.chronicle [n]` (keepers): the last turns as the campaign remembers them, with
  their keeper-only facts.
- `.recap` (anyone): the players' projection of the campaign: the summary of earlier
  play and the last turns, never a keeper-only fact (nor a trace of a hidden roll: not
  for its roller either, whose roll is told to them and the keepers only as it is made).
"""

from __future__ import annotations

from base.i18n import _
from keeper import chronicle, lore
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.models import LoreEntry, Story

RECAP_TURNS = 8
CHRONICLE_TURNS = 10
MAX_CHRONICLE_TURNS = 50


def _visible(caller: Caller):
    entries = LoreEntry.objects.filter(room_id=caller.room_id)
    return entries if caller.is_keeper else entries.filter(visibility=LoreEntry.Visibility.EVERYONE)


def _line(entry: LoreEntry, caller: Caller) -> str:
    mark = caller.say(_(" (keepers)")) if entry.visibility == LoreEntry.Visibility.KEEPERS else ""
    keywords = ", ".join(entry.keywords)
    return f"- {entry.title}{mark}" + (f" [{keywords}]" if keywords else "")


def _add(rest: str, caller: Caller, visibility: str) -> CommandReply:
    parts = [part.strip() for part in rest.split("|")]
    if len(parts) != 3 or not parts[0] or not parts[2]:
        return CommandReply(caller.say(_("Use .lore add <title> | <keyword, keyword> | <content>.")))
    title, keywords, content = parts[0][:200], [k.strip() for k in parts[1].split(",") if k.strip()], parts[2]
    try:
        lore.write(caller.room_id, title, keywords, content[:4000], visibility=visibility, source="keeper")
    except lore.LoreError as refused:
        return CommandReply(refused.message(caller.locale))
    if visibility == LoreEntry.Visibility.KEEPERS:
        return CommandReply(caller.say(_("Lore {title} saved (keepers only)."), title=title))
    return CommandReply(caller.say(_("Lore {title} saved."), title=title))


@command(
    "lore",
    help=_(
        "lore: .lore list, .lore show <title>, .lore query <words>; keeper: .lore add <title> | "
        "<keywords> | <content>, .lore secret ..., .lore del <title>"
    ),
)
def lore_command(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("add", "secret", "del") and not caller.is_keeper:
        return keeper_refusal(caller)
    if word == "add":
        return _add(rest, caller, LoreEntry.Visibility.EVERYONE)
    if word == "secret":
        return _add(rest, caller, LoreEntry.Visibility.KEEPERS)
    if word == "del":
        deleted, _count = LoreEntry.objects.filter(room_id=caller.room_id, title__iexact=rest).delete()
        if not deleted:
            return CommandReply(caller.say(_("No lore called {title}."), title=rest[:200]))
        return CommandReply(caller.say(_("Lore {title} deleted."), title=rest[:200]))
    if word == "show":
        entry = _visible(caller).filter(title__iexact=rest).first()
        if entry is None:
            return CommandReply(caller.say(_("No lore called {title}."), title=rest[:200]))
        return CommandReply(f"{_line(entry, caller)}\n{entry.content}")
    if word == "query":
        found = lore.relevant(caller.room_id, [rest], keepers=caller.is_keeper) if rest else []
        if not found:
            return CommandReply(caller.say(_("No lore matches {words}."), words=rest[:200]))
        return CommandReply("\n".join(f"{_line(entry, caller)}: {entry.content[:300]}" for entry in found))
    if word not in ("", "list", "ls"):
        return CommandReply(caller.say(_("Use .lore list, .lore show <title> or .lore query <words>.")))
    entries = list(_visible(caller).order_by("order", "id")[:200])
    if not entries:
        return CommandReply(caller.say(_("No lore yet.")))
    return CommandReply("\n".join([caller.say(_("Lore:")), *(_line(entry, caller) for entry in entries)]))


@command("chronicle", help=_("keeper: .chronicle [n], the last turns with their keeper-only facts"))
def chronicle_command(arguments: str, caller: Caller) -> CommandReply:
    if not caller.is_keeper:
        return keeper_refusal(caller)
    wanted = arguments.strip()
    count = int(wanted) if wanted.isascii() and wanted.isdigit() else CHRONICLE_TURNS
    entries = chronicle.recent(caller.room_id, min(max(count, 1), MAX_CHRONICLE_TURNS))
    if not entries:
        return CommandReply(caller.say(_("The chronicle is empty.")))
    lines = []
    for entry in entries:
        where = " · ".join(part for part in (entry.scene, entry.clock) if part)
        lines.append(f"#{entry.id} {where}".rstrip())
        if entry.public_text():  # a hidden roll's turn has only its keeper-only facts
            lines.append("  " + entry.public_text()[:600])
        if entry.keeper_facts:
            facts = entry.keeper_facts.replace("\n", "; ")
            lines.append("  " + caller.say(_("[keepers] {facts}"), facts=facts))
    return CommandReply("\n".join(lines))


@command("recap", help=_("the story so far (no spoilers)"))
def recap(arguments: str, caller: Caller) -> CommandReply:
    """Only what the table saw: the module's public intro, the summary of earlier play
    (written from the table's side only), the scene, the clock and the last turns."""
    story = Story.objects.filter(room_id=caller.room_id).first()
    summary = chronicle.summary_of(caller.room_id)
    lines = []
    if story and story.module_title:
        lines += [caller.say(_("Module: {t}"), t=story.module_title), story.module_intro]
    if story and story.scene_name:
        lines.append(caller.say(_("Scene: {s}"), s=story.scene_name))
    if story and story.clock_minutes is not None:
        lines.append(caller.say(_("Time: {t}"), t=story.clock_text()))
    if summary.text:
        lines += [caller.say(_("Earlier:")), summary.text]
    entries = chronicle.recent_public(caller.room_id, RECAP_TURNS)
    if entries:
        lines.append(caller.say(_("So far:")))
        for entry in entries:
            text = entry.public_text()
            lines.append("- " + (text if len(text) <= 240 else text[:239] + "…"))
    return CommandReply("\n".join(lines) or caller.say(_("Nothing has happened yet.")))
