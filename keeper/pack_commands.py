"""`.pack` and `.panels`: content packs from the table. Anyone lists what is installed;
a keeper installs a pack by its reference (a name, a path inside the packs folder,
`gh:owner/repo`, an https URL: `keeper.pack_sources`) and it is on in the room at once, its
panels and variables as `.panels enable <id>` turns them on; or removes one. A
download runs after the first reply, off the table's turn. `.module <pack>` does the
same and loads the pack's module: its world card (`load_module`)."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from base.i18n import Refusal, _
from keeper import pack_sources, variables
from keeper.commands import Caller, CommandReply, FollowUp, command, keeper_refusal
from keeper.models import Story
from packs import services
from packs.models import InstalledPack


@command(
    "pack",
    "packs",
    help=_(
        "content packs: .pack list; keeper: .pack install <name|path|gh:owner/repo|https URL> "
        "(installed and on in this room), .pack remove <id>"
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


def _install(ref: str, caller: Caller) -> CommandReply:
    return _with_pack(ref, caller, lambda pack, new: _on(pack, new, caller))


def _with_pack(ref: str, caller: Caller, then: Callable[[InstalledPack, bool], CommandReply]) -> CommandReply:
    """`then(pack, new)` with the pack `ref` names, installed first when it is not (a
    download after a first reply: its answer follows)."""
    found = pack_sources.find(ref)
    if found.fetch is None:
        if found.installed is not None:
            return then(found.installed, False)
        return then(services.install(found.data, by=caller.name), True)

    def finish(fetched: object) -> CommandReply:
        try:
            if isinstance(fetched, Refusal):
                raise fetched
            if isinstance(fetched, Exception):
                raise pack_sources.PackError(
                    _("{url} could not be fetched: {problem}"), url=found.shown, problem=str(fetched)[:160]
                )
            return then(services.install(fetched, by=caller.name), True)
        except Refusal as refused:
            return CommandReply(refused.message(caller.locale))

    return CommandReply(
        caller.say(_("Fetching the pack {ref}…"), ref=found.shown), follow_up=FollowUp(found.fetch, finish)
    )


def turn_on(room_id: int, pack: InstalledPack, by: str) -> None:
    """The pack on in the room: its panels, and the variables they read, together."""
    with transaction.atomic():
        services.enable(room_id, pack.pack_id, by=by)
        variables.declare(room_id, pack.manifest.get("variables", []), source=pack.pack_id)


def _on(pack: InstalledPack, new: bool, caller: Caller, *, hint: bool = True) -> CommandReply:
    turn_on(caller.room_id, pack, caller.name)
    if new:
        lines = [caller.say(_("Installed the pack {id} {version}."), id=pack.pack_id, version=pack.version)]
        lines += services.trust_lines(pack.manifest, caller.locale, enabling=True)
    else:
        lines = [
            caller.say(_("The pack {id} {version} is installed."), id=pack.pack_id, version=pack.version)
        ]
    lines.append(
        caller.say(
            _("The panels of {name} ({id}) are on in this room."),
            name=pack.title(caller.locale),
            id=pack.pack_id,
        )
    )
    if hint and any(card.get("kind") == "world" for card in pack.cards):
        lines.append(caller.say(_("To load its module (its world card): .module {id}"), id=pack.pack_id))
    return CommandReply("\n".join(lines), panels_changed=True)


def load_module(ref: str, caller: Caller) -> CommandReply:
    """`.module <pack>`: the pack installed if it is not, on in the room, and its module
    loaded: its one world card imported into the room (as `.import <ref> world apply`),
    its name and description the room's module; a pack of several world cards names
    them, the choice is the keeper's."""
    try:
        return _with_pack(ref, caller, lambda pack, new: _module(pack, new, caller))
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))


def _module(pack: InstalledPack, new: bool, caller: Caller) -> CommandReply:
    from keeper.import_commands import import_card  # a command module, as this one

    lines = [_on(pack, new, caller, hint=False).text]
    worlds = [f"{pack.pack_id}/{card['path']}" for card in pack.cards if card.get("kind") == "world"]
    if len(worlds) == 1:
        lines.append(import_card(f"{worlds[0]} world apply", caller).text)
    elif worlds:
        lines.append(caller.say(_("The pack holds several modules; load one with:")))
        lines += [f"  .import {ref} world apply" for ref in worlds]
    else:
        lines.append(caller.say(_("The pack has no world card; .import list shows its cards.")))
    story = Story.of(caller.room_id)
    story.module_id = pack.pack_id[:64]
    story.module_title = pack.title(caller.locale)[:200]
    story.module_intro = (pack.description.get(caller.locale) or pack.description.get("en") or "")[:4000]
    story.save(update_fields=["module_id", "module_title", "module_intro"])
    return CommandReply("\n".join(lines), panels_changed=True)


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
            pack_ = services.enable(caller.room_id, rest, by=caller.name)
            turn_on(caller.room_id, pack_, caller.name)
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
