"""The game's share of a room backup: the table's settings, the characters, the
initiative order, the story (module, scene, clock), the NPCs, the keeper notes, the
module variables, the lore and the hook scripts world cards brought."""

from __future__ import annotations

from pathlib import Path

from keeper.models import (
    Character,
    InitiativeEntry,
    KeeperNote,
    LoreEntry,
    ModuleVariable,
    Npc,
    Story,
    TableSettings,
)
from packs.models import RoomHook
from rooms.backups import BackupPart, Restoring, RoomCounts
from rooms.models import Room

# Story fields a backup carries (the usage counters belong to the server that spent them).
STORY_FIELDS = (
    "module_id",
    "module_title",
    "module_intro",
    "module_truth",
    "progress",
    "scene_name",
    "scene_focus",
    "clock_minutes",
)
SETTINGS_FIELDS = ("system", "house_rule", "language", "skills", "bot")
CHARACTER_FIELDS = (
    "owner",
    "name",
    "system",
    "attributes",
    "skills",
    "resources",
    "status_effects",
    "avatar",
    "active",
    "pregen",
    "background",
)
_USAGE_ZERO = dict.fromkeys(Story.USAGE_FIELDS, 0)
VARIABLE_FIELDS = (
    "var_id",
    "label",
    "kind",
    "value",
    "initial",
    "minimum",
    "maximum",
    "choices",
    "exposed",
    "source",
)

LORE_FIELDS = (
    "title",
    "keywords",
    "secondary",
    "content",
    "visibility",
    "constant",
    "selective",
    "order",
    "source",
)
HOOK_FIELDS = ("source", "position", "code")


class GamePart(BackupPart):
    """Characters, initiative, NPCs and notes as rows; settings and story as fields."""

    rows = ("characters", "initiative", "npcs", "keeper_notes", "variables", "lore", "card_hooks")

    def export(self, room: Room, path: Path) -> dict:
        table = TableSettings.objects.filter(room=room).first()
        story = Story.objects.filter(room=room).first()
        return {
            "settings": {name: getattr(table, name) for name in SETTINGS_FIELDS} if table else {},
            "characters": [
                {name: getattr(c, name) for name in CHARACTER_FIELDS}
                for c in Character.objects.filter(room=room).order_by("id")
            ],
            "initiative": [
                {"name": e.name, "value": e.value, "tiebreak": e.tiebreak, "current": e.current}
                for e in InitiativeEntry.objects.filter(room=room)
            ],
            "story": {name: getattr(story, name) for name in STORY_FIELDS} if story else {},
            "npcs": [
                {"name": n.name, "persona": n.persona, "secret": n.secret}
                for n in Npc.objects.filter(room=room)
            ],
            "keeper_notes": [note.text for note in KeeperNote.objects.filter(room=room).order_by("id")],
            "variables": [
                {name: getattr(v, name) for name in VARIABLE_FIELDS}
                for v in ModuleVariable.objects.filter(room=room).order_by("id")
            ],
            "lore": [
                {name: getattr(e, name) for name in LORE_FIELDS}
                for e in LoreEntry.objects.filter(room=room).order_by("id")
            ],
            "card_hooks": [
                {name: getattr(h, name) for name in HOOK_FIELDS}
                for h in RoomHook.objects.filter(room=room).order_by("id")
            ],
        }

    def restore(self, room: Room, document: dict, restoring: Restoring) -> RoomCounts:
        for character in document["characters"]:
            Character.objects.create(room=room, **character)
        for entry in document["initiative"]:
            InitiativeEntry.objects.create(room=room, **entry)
        if document["settings"]:
            TableSettings.objects.update_or_create(room=room, defaults=document["settings"])
        story = {k: v for k, v in document.get("story", {}).items() if k in STORY_FIELDS}
        if story:
            Story.objects.update_or_create(room=room, defaults=story)
        for npc in document.get("npcs", []):
            Npc.objects.create(room=room, **npc)
        for text in document.get("keeper_notes", []):
            KeeperNote.objects.create(room=room, text=text)
        for variable in document.get("variables", []):
            ModuleVariable.objects.create(
                room=room, **{k: v for k, v in variable.items() if k in VARIABLE_FIELDS}
            )
        for entry in document.get("lore", []):
            LoreEntry.objects.create(room=room, **{k: v for k, v in entry.items() if k in LORE_FIELDS})
        for hook in document.get("card_hooks", []):
            RoomHook.objects.create(room=room, **{k: v for k, v in hook.items() if k in HOOK_FIELDS})
        return RoomCounts()

    def clear(self, room: Room, scope: str) -> RoomCounts:
        """`story`: initiative and notes go, the story's progress starts over and the
        module variables go back to where they started; `chars`: the characters too;
        `all`: the module (the story row), its NPCs, its variables, the lore and the
        world cards' hooks too; `delete`: the room's settings too."""
        doomed = [InitiativeEntry, KeeperNote]
        if scope != "story":
            doomed.append(Character)
        if scope in ("all", "delete"):
            doomed += [Npc, Story, ModuleVariable, LoreEntry, RoomHook]
        else:
            for variable in ModuleVariable.objects.filter(room=room):
                if variable.value != variable.initial:
                    variable.value = variable.initial
                    variable.save(update_fields=["value"])
        deleted = sum(model.objects.filter(room=room).delete()[0] for model in doomed)
        if Story not in doomed:
            Story.objects.filter(room=room).update(
                progress=0, scene_name="", scene_focus="", clock_minutes=None, **_USAGE_ZERO
            )
        if scope == "delete":
            TableSettings.objects.filter(room=room).delete()
        return RoomCounts(store_rows=deleted)
