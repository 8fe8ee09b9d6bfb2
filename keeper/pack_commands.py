"""`.pack` and `.panels`: content packs from the table. Anyone lists what is installed;
a keeper installs a pack the operator placed in the server's packs folder (by its
name), or removes one. Installing enables nothing in any room: a keeper turns a pack's
panels on in the room with `.panels enable <id>` (`packs.services`)."""

from __future__ import annotations

from django.db import transaction

from base.i18n import Refusal, _
from keeper import variables
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from packs import services


@command(
    "pack",
    "packs",
    help=_(
        "content packs: .pack list; keeper: .pack install <name> (from the packs folder), .pack remove <id>"
    ),
)
def pack(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word = word.lower()
    if word in ("", "list", "ls"):
        return _list(caller)
    if word not in ("install", "remove", "rm"):
        return CommandReply(caller.say(_("Use .pack list, .pack install <name> or .pack remove <id>.")))
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if not rest.strip():
        return CommandReply(caller.say(_("Name the pack: .pack {word} <name>."), word=word))
    try:
        if word == "install":
            return _install(rest, caller)
        removed = services.remove(rest)
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(_("Removed the pack {id} {version}."), id=removed.pack_id, version=removed.version)
    )


def _install(name: str, caller: Caller) -> CommandReply:
    installed = services.install(services.read_offered(name), by=caller.name)
    lines = [
        caller.say(_("Installed the pack {id} {version}."), id=installed.pack_id, version=installed.version)
    ]
    lines += services.trust_lines(installed.manifest, caller.locale)
    return CommandReply("\n".join(lines))


def _list(caller: Caller) -> CommandReply:
    lines = []
    installed = services.installed()
    if installed:
        lines.append(caller.say(_("Installed packs:")))
        lines += [f"  {pack.pack_id} {pack.version} · {pack.title(caller.locale)}" for pack in installed]
    else:
        lines.append(caller.say(_("No pack is installed.")))
    if caller.is_keeper:
        present = {pack.pack_id for pack in installed}
        waiting = [offered.name for offered in services.offered() if offered.name not in present]
        if waiting:
            lines.append(
                caller.say(_("In the packs folder, ready to install: {names}"), names=", ".join(waiting))
            )
    return CommandReply("\n".join(lines))


@command(
    "panels",
    "panel",
    help=_("module panels: .panels list; keeper: .panels enable <pack id>, .panels disable <pack id>"),
)
def panels(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word = word.lower()
    if word in ("", "list", "ls"):
        return _panels_list(caller)
    if word not in ("enable", "on", "disable", "off"):
        return CommandReply(
            caller.say(_("Use .panels list, .panels enable <pack id> or .panels disable <pack id>."))
        )
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if not rest.strip():
        return CommandReply(caller.say(_("Name the pack: .panels {word} <pack id>."), word=word))
    try:
        if word in ("enable", "on"):
            with transaction.atomic():  # the panels and the variables they read, together
                pack_ = services.enable(caller.room_id, rest, by=caller.name)
                variables.declare(caller.room_id, pack_.manifest.get("variables", []), source=pack_.pack_id)
            text = _("The panels of {name} ({id}) are on in this room.")
        else:
            pack_ = services.disable(caller.room_id, rest)
            text = _("The panels of {name} ({id}) are off in this room.")
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(text, name=pack_.title(caller.locale), id=pack_.pack_id),
        private=False,
        panels_changed=True,
    )


def _panels_list(caller: Caller) -> CommandReply:
    on = {pack_.pack_id for pack_ in services.enabled(caller.room_id)}
    installed = services.installed()
    if not installed:
        return CommandReply(caller.say(_("No pack is installed, so there are no panels to turn on.")))
    lines = [caller.say(_("Packs with panels (on in this room: marked *):"))]
    for pack_ in installed:
        shown = [
            panel["id"]
            for panel in pack_.panels
            if caller.is_keeper or panel.get("audience", "all") != "keeper"
        ]
        mark = "*" if pack_.pack_id in on else " "
        lines.append(f" {mark} {pack_.pack_id} · {pack_.title(caller.locale)}: {', '.join(shown) or '-'}")
    return CommandReply("\n".join(lines))
