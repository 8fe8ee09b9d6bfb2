"""The game's share of a room backup: the table's settings, the characters (with what
they carry), the initiative order, the story (module, scene, clock), the quests, the
NPCs, the keeper notes, the module variables, the lore and the hook scripts world cards
brought."""

from __future__ import annotations

import bisect
from pathlib import Path

from keeper.models import (
    CampaignSummary,
    Character,
    ChronicleEntry,
    InitiativeEntry,
    KeeperNote,
    LoreEntry,
    ModuleVariable,
    Npc,
    Quest,
    Story,
    TableSettings,
)
from packs.models import RoomHook
from rooms.backups import BackupPart, Restoring, RoomCounts
from rooms.models import Room, TranscriptEntry

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
SETTINGS_FIELDS = ("system", "house_rule", "language", "skills", "bot", "turn_mode", "round_seconds")
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
    "items",
    "money",
)
QUEST_FIELDS = ("name", "status", "description", "secret")
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
CHRONICLE_FIELDS = (
    "actor",
    "line",
    "outcome",
    "dice",
    "npc_lines",
    "told",
    "scene",
    "clock",
    "keeper_facts",
    "last_line_id",
)


class GamePart(BackupPart):
    """Characters, initiative, NPCs and notes as rows; settings and story as fields."""

    rows = (
        "characters",
        "initiative",
        "npcs",
        "keeper_notes",
        "variables",
        "lore",
        "card_hooks",
        "chronicle",
        "quests",
    )

    def export(self, room: Room, path: Path) -> dict:
        # The chronicle and the summary point at transcript lines: by their position,
        # as the table's part exports the transcript.
        lines = list(TranscriptEntry.objects.filter(room=room).order_by("id").values_list("id", flat=True))
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
            "chronicle": [
                {
                    **{name: getattr(e, name) for name in CHRONICLE_FIELDS},
                    "last_line_id": _position(lines, e.last_line_id),
                }
                for e in ChronicleEntry.objects.filter(room=room).order_by("id")
            ],
            "summary": _summary_of(room, lines),
            "quests": [
                {name: getattr(q, name) for name in QUEST_FIELDS}
                for q in Quest.objects.filter(room=room).order_by("id")
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
        for quest in document.get("quests", []):
            Quest.objects.create(room=room, **{k: v for k, v in quest.items() if k in QUEST_FIELDS})
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
        # Transcript lines get new ids in a restore (`restoring.line_ids`, by position).
        for entry in document.get("chronicle", []):
            fields = {k: v for k, v in entry.items() if k in CHRONICLE_FIELDS}
            fields["last_line_id"] = restoring.line_ids.get(fields.get("last_line_id"))
            ChronicleEntry.objects.create(room=room, **fields)
        summary = document.get("summary") or {}
        if summary.get("text") or summary.get("keeper_digest"):
            CampaignSummary.objects.update_or_create(
                room=room,
                defaults={
                    "text": summary.get("text", ""),
                    "keeper_digest": summary.get("keeper_digest", ""),
                    "through_line_id": restoring.line_ids.get(summary.get("through_line_id"), 0),
                    "folds": summary.get("folds", 0),
                },
            )
        return RoomCounts()

    def clear(self, room: Room, scope: str) -> RoomCounts:
        """`story`: initiative, notes, the chronicle, the summary and the quests go, the story's
        progress starts over and the module variables go back to where they started
        (the lore stays); `chars`: the characters too;
        `all`: the module (the story row), its NPCs, its variables, the lore and the
        world cards' hooks too; `delete`: the room's settings too."""
        doomed = [InitiativeEntry, KeeperNote, ChronicleEntry, CampaignSummary, Quest]
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


def _position(lines: list[int], line_id: int | None) -> int | None:
    """The position among the room's transcript `lines` of the last line up to `line_id`."""
    if line_id is None:
        return None
    position = bisect.bisect_right(lines, line_id) - 1
    return position if position >= 0 else None


def _summary_of(room: Room, lines: list[int]) -> dict:
    summary = CampaignSummary.objects.filter(room=room).first()
    if summary is None:
        return {}
    return {
        "text": summary.text,
        "keeper_digest": summary.keeper_digest,
        "through_line_id": _position(lines, summary.through_line_id),
        "folds": summary.folds,
    }
