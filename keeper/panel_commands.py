"""`.panel`: the room's module panels as text, for a client that cannot draw them.
Bare, it lists the panels this member may open (their own `ui_manifest`); with an id it
reads one against their own variables, by the rules every client draws panels by
(`packs/panel_templates.py`): a keeper's panels read the keeper-only variables, a
player's never can (docs/packs.md, "Panels in a room")."""

from __future__ import annotations

from typing import Any

from base.i18n import _
from keeper import variables
from keeper.commands import Caller, CommandReply, command
from packs import services
from packs.panel_templates import panel_text, pick


def _title(panel: dict, locale: str) -> str:
    return pick(panel.get("title"), locale) or panel["id"]


def _find(panels: list[dict], wanted: str, locale: str) -> dict | None:
    """The panel named by its full id (`pack/panel`), its id in the pack or its title."""
    for panel in panels:
        short = panel["id"].partition("/")[2]
        if wanted in (panel["id"], short) or wanted.casefold() == _title(panel, locale).casefold():
            return panel
    return None


@command("panel", help=_("a module panel as text: .panel lists them, .panel <id> shows one"))
def panel(arguments: str, caller: Caller) -> CommandReply:
    """`.panel [<id>]`: the panels of the caller's own manifest, or one of them read
    against the caller's own variables."""
    role = "keeper" if caller.is_keeper else "player"
    panels = services.room_manifests(caller.room_id)[role]
    if not panels:
        return CommandReply(caller.say(_("No panels are on in this room.")))
    wanted = arguments.strip()
    if not wanted:
        lines = [caller.say(_("Panels you can open:"))]
        lines += [f"  {found['id']} · {_title(found, caller.locale)}" for found in panels]
        lines.append(caller.say(_(".panel <id> shows one as text.")))
        return CommandReply("\n".join(lines))
    found = _find(panels, wanted, caller.locale)
    if found is None:
        return CommandReply(
            caller.say(
                _("No panel {name} here. Panels you can open: {ids}"),
                name=wanted[:80],
                ids=", ".join(each["id"] for each in panels),
            )
        )
    return CommandReply("\n".join([f"{_title(found, caller.locale)} ({found['id']})", *_body(found, caller)]))


def _body(found: dict, caller: Caller) -> list[str]:
    # A tier-2 panel's text is its fallback; `fallback: null` has none by its author's choice.
    blocks: Any = found.get("blocks") if found.get("tier", 1) == 1 else found.get("fallback")
    if blocks is None:
        return [caller.say(_("This panel is drawn in the rich client only."))]
    shown = variables.for_viewer(
        variables.entries(caller.room_id), is_keeper=caller.is_keeper, locale=caller.locale
    )
    lines = panel_text(blocks, shown, caller.locale)
    return lines or [caller.say(_("Nothing in this panel shows for you now."))]
