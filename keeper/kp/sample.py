"""The offline sample Keeper: a Keeper that plays a short adventure of our own, "The
Lamp at Gull Rock", when no usable model is configured.

It is a model like any other to the turn loop (`stream` / `complete`): it streams its
narration in small pieces, asks for real checks through the same tools, and reads
their results before it goes on. What it plays is data (`sample_adventure.yaml`):
places with the actions players may take there, NPCs who answer when addressed, clues
kept as module variables, and two endings. It answers what a player's line does, in
the room's language, and rolls for the character of whoever said it. Once an ending
is played the offline Keeper takes over. `demo_setup` installs the adventure when a
keeper sends the guided action (docs/decisions.md, "The offline Keeper and the sample
adventure").
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.db.models import F

from keeper import character_names, characters, variables
from keeper.kp.words import mentions, names_npc
from keeper.llm.client import StreamEvent, TextDelta, ToolCall, ToolCalls
from keeper.models import Character, KeeperNote, ModuleVariable, Npc, Story, TableSettings
from rooms import backups
from rooms.models import AccessKey, Role, Room, Speaker, TranscriptEntry, TurnEvent

GUIDED_ACTIONS = ("Start the built-in sample adventure", "开始内置示例冒险")
MODULE_ID = "sample"
# The rule system the adventure is written for (1923, Call of Cthulhu 7e).
SYSTEM = "coc7"
CHUNK_WORDS = 3
ADVENTURE = Path(__file__).with_name("sample_adventure.yaml")
# Tool calls carry the step they belong to, so the next round knows what it follows.
_CALL = "sample:"


@cache
def adventure() -> dict:
    """The adventure's data, read once."""
    return yaml.safe_load(ADVENTURE.read_text(encoding="utf-8"))


def text_in(options: dict, locale: str, line: str = "") -> str:
    """`options` ({en, zh}, each a text or a list to pick from by the line) in `locale`."""
    chosen = options.get(locale) or options["en"]
    if isinstance(chosen, list):
        chosen = chosen[int(hashlib.sha256(line.encode("utf-8")).hexdigest(), 16) % len(chosen)]
    return chosen


def is_guided_action(text: str) -> bool:
    """Whether a line is the demo's guided action."""
    return text.strip() in GUIDED_ACTIONS


def plays_sample(room_id: int) -> bool:
    """Whether the room is playing the sample adventure (set up, not yet ended)."""
    if not Story.objects.filter(room_id=room_id, module_id=MODULE_ID).exists():
        return False
    ending = ModuleVariable.objects.filter(room_id=room_id, var_id="sample.ending").first()
    return ending is None or not ending.value


def room_is_empty(room_id: int) -> bool:
    """Nothing has happened here yet: no story, characters, module or NPCs."""
    return not (
        TranscriptEntry.objects.filter(room_id=room_id).exists()
        or TurnEvent.objects.filter(room_id=room_id).exists()
        or Character.objects.filter(room_id=room_id).exists()
        or Npc.objects.filter(room_id=room_id).exists()
        or KeeperNote.objects.filter(room_id=room_id).exists()
        or Story.objects.filter(room_id=room_id).exclude(module_id="", scene_name="").exists()
    )


def can_start(room_id: int) -> bool:
    """Whether the sample adventure may start here: the story has not begun a module."""
    return not Story.objects.filter(room_id=room_id).exclude(module_id="").exists()


def demo_setup(room_id: int, member_id: str, name: str, locale: str) -> bool:
    """Install the sample adventure if the room's story has not begun a module (the
    caller holds the room's turn); a room where anything has happened is backed up
    first (`before-sample-…`). Returns False, changing nothing, when it may not start."""
    if not can_start(room_id):
        return False
    if not room_is_empty(room_id):
        backups.safety_backup(Room.objects.get(pk=room_id).name, "before-sample")
    book = adventure()
    with transaction.atomic():
        if not can_start(room_id):
            return False
        story = Story.of(room_id)
        story.module_id = MODULE_ID
        story.module_title = text_in(book["title"], locale)
        story.module_intro = text_in(book["intro"], locale)
        story.module_truth = book["truth"]
        story.progress = 0
        story.scene_name = ""
        story.clock_minutes = book["clock"]
        story.save()
        for npc_name, npc in book["npcs"].items():
            Npc.objects.update_or_create(
                room_id=room_id,
                name=npc_name,
                defaults={"persona": npc["persona"], "secret": npc["secret"]},
            )
        ModuleVariable.objects.filter(room_id=room_id, var_id__startswith="sample.").delete()
        variables.declare(room_id, book["variables"], source=MODULE_ID)
        # A Call of Cthulhu adventure: the room rolls as one (a keeper's checks, `.r`).
        TableSettings.objects.update_or_create(room_id=room_id, defaults={"system": SYSTEM})
        for character in Character.objects.filter(room_id=room_id, system=SYSTEM):
            fitted_before_start(character, book["skills"])
    # Only keepers start it, and a keeper runs the table: no investigator is made for
    # them (players get theirs when they first act).
    return True


def is_keeper(room_id: int, member_id: str) -> bool:
    """Whether the member holds a keeper's key to the room."""
    return AccessKey.objects.filter(room_id=room_id, member_id=member_id, role=Role.KEEPER).exists()


def investigator(room_id: int, member_id: str, name: str) -> Character | None:
    """The member's active character; one with the adventure's skills is made for a
    player who has none, so everyone who plays has a sheet to roll on. A keeper is
    never made one (None when they play none): they run the table, and their checks
    roll with the adventure's values under their own name."""
    found = characters.active_character(room_id, member_id)
    if found is not None:
        return found
    if is_keeper(room_id, member_id):
        return None
    # Nobody to ask for another name here: a name the room holds gets a number.
    name = character_names.free_name(room_id, character_names.chosen_name(name, "?"))
    made = characters.character_create(room_id=room_id, member_id=member_id, system=SYSTEM, name=name)
    return made_ready(room_id, made.character)


def made_ready(room_id: int, character: Character) -> Character:
    """A character just made, fitted for the adventure while the room plays it: an
    investigator of its system gets the adventure's skills (Spot Hidden 60, Listen
    50…), whether made by `.coc` (the welcome's button) or by just typing, so neither
    way is the worse one. A character of another system keeps its sheet: its checks
    roll its own way (`d20` in the adventure)."""
    if character.system == SYSTEM and plays_sample(room_id):
        character.skills.update(adventure()["skills"])
        character.save(update_fields=["skills"])
    return character


def fitted_before_start(character: Character, skills: dict[str, int]) -> None:
    """An investigator made before the adventure started is no worse off than one made
    after: each of the adventure's skills is raised to its value, and a skill its player
    already has higher stays as it is."""
    raised = {skill: value for skill, value in skills.items() if character.skills.get(skill, 0) < value}
    if raised:
        character.skills.update(raised)
        character.save(update_fields=["skills"])


def chunks(text: str) -> list[str]:
    words = text.split(" ")
    return [
        " ".join(words[i : i + CHUNK_WORDS]) + (" " if i + CHUNK_WORDS < len(words) else "")
        for i in range(0, len(words), CHUNK_WORDS)
    ]


async def streamed(text: str) -> AsyncIterator[TextDelta]:
    """`text` as a model streams it: a few words at a time, `TRPG_OFFLINE__STREAM_PAUSE`
    seconds apart (a pause of 0 still hands each piece over on its own)."""
    for piece in chunks(text) if text else ():
        await asyncio.sleep(settings.TRPG_OFFLINE_STREAM_PAUSE)
        yield TextDelta(piece)


@dataclass
class Position:
    """Where the adventure stands when a line is answered: the line, who said it (and
    the character they roll with), the place and the clues found."""

    line: str
    actor: str
    skills: dict
    place: str
    flags: set[str]
    guided: bool
    # Whether the actor plays a character (a keeper does not): only a sheet takes items.
    has_sheet: bool = True
    # The die the actor's checks roll: "d20" for a character of a d20 system (D&D 5e).
    die: str = "d100"


@dataclass
class Round:
    """What one round says and does: narration, then at most one tool call that moves
    the story, tagged with the step (`tag`) the next round follows on from."""

    text: str = ""
    tool: tuple[str, dict] | None = None
    tag: str = ""
    # Bookkeeping calls made in the same round, after `tool` (items, the quest): never
    # after a check, whose verdict the next round reads from the last tool result.
    more: tuple[tuple[str, dict], ...] = ()


class SampleKeeper:
    """The sample adventure's Keeper for one turn (see the module docstring)."""

    # No model behind it: the campaign's summary is folded by extraction.
    writes_summaries = False

    def __init__(self, room_id: int, member_id: str = "", locale: str = "en") -> None:
        self.room_id = room_id
        self.member_id = member_id
        self.locale = locale if locale in ("en", "zh") else "en"

    # --- the state the adventure keeps ----------------------------------------------

    def _position(self) -> Position:
        latest = (
            TranscriptEntry.objects.filter(room_id=self.room_id, speaker=Speaker.PLAYER)
            .order_by("-id")
            .first()
        )
        member_id = latest.member_id if latest else self.member_id
        said_by = latest.name if latest else "?"
        character = investigator(self.room_id, member_id, said_by)
        found = dict(
            ModuleVariable.objects.filter(room_id=self.room_id, var_id__startswith="sample.").values_list(
                "var_id", "value"
            )
        )
        line = latest.text if latest else ""
        return Position(
            line=line,
            actor=character.name if character else said_by,
            skills=character.skills if character else {},
            place=str(found.get("sample.place") or "harbour"),
            flags={key.removeprefix("sample.") for key, value in found.items() if value is True},
            guided=is_guided_action(line),
            has_sheet=character is not None,
            die=characters.pack_of(character).check.roll if character else "d100",
        )

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            ModuleVariable.objects.filter(room_id=self.room_id, var_id=f"sample.{name}").update(value=value)

    def _gain(self, flags: list[str]) -> None:
        self._set(**dict.fromkeys(flags, True))

    def _go(self, place: str) -> None:
        self._set(place=place)
        name = text_in(adventure()["places"][place]["name"], self.locale)
        Story.objects.filter(room_id=self.room_id).update(scene_name=name)

    def _beat(self) -> None:
        """One player line answered: the story moves on and its clock with it."""
        minutes = adventure()["minutes_per_beat"]
        Story.objects.filter(room_id=self.room_id).update(
            progress=F("progress") + 1, clock_minutes=F("clock_minutes") + minutes
        )

    def _first_player(self) -> str:
        """The first player character of the room (by when it was made), who takes the
        opening's items when a keeper started the adventure ("" when nobody plays yet)."""
        keepers = AccessKey.objects.filter(room_id=self.room_id, role=Role.KEEPER).values("member_id")
        first = (
            Character.objects.filter(room_id=self.room_id, active=True)
            .exclude(owner="")
            .exclude(owner__in=keepers)
            .order_by("id")
            .first()
        )
        return first.name if first else ""

    def _end(self, ending: str) -> None:
        self._set(ending=ending)

    # --- the turn --------------------------------------------------------------------

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """The next round of the answer to the newest line, read off the conversation."""
        story = await database_sync_to_async(Story.objects.filter(room_id=self.room_id).first)()
        if story is None or story.module_id != MODULE_ID:
            return
        position = await database_sync_to_async(self._position)()
        follows, verdict = _last_step(messages)
        if follows is None:
            chosen = await database_sync_to_async(self._first_round)(position)
        else:
            chosen = await database_sync_to_async(self._next_round)(position, follows, verdict)
        async for piece in streamed(chosen.text.replace("{actor}", position.actor)):
            yield piece
        if chosen.tool is not None:
            name, arguments = chosen.tool
            call_id = f"{_CALL}{chosen.tag}:{len(messages)}"
            calls = [ToolCall(call_id, name, json.dumps(arguments, ensure_ascii=False))]
            for number, (more, more_arguments) in enumerate(chosen.more):
                more_id = f"{_CALL}more{number}:{len(messages)}"
                calls.append(ToolCall(more_id, more, json.dumps(more_arguments, ensure_ascii=False)))
            yield ToolCalls(calls)

    def _first_round(self, position: Position) -> Round:
        book = adventure()
        if position.guided:
            return Round(tool=("present", self._title_card(book["title"], book["act"])), tag="open:title")
        self._beat()
        place = book["places"][position.place]
        for npc_name, npc in book["npcs"].items():
            if names_npc(position.line, npc_name) or mentions(position.line, npc.get("aliases", [])):
                if npc_name not in place.get("npcs", []):
                    return Round(self._say(npc["away"]))
                return self._npc(position, npc_name, npc)
        for number, action in enumerate(place["actions"]):
            if _matches(position.line, action["words"]):
                return self._act(position, action, f"act:{position.place}:{number}")
        return Round(self._say(place["hints"], position.line))

    def _npc(self, position: Position, npc_name: str, npc: dict) -> Round:
        for number, topic in enumerate(npc["topics"]):
            if _matches(position.line, topic["words"]):
                tag = f"npc:{npc_name}:{number}"
                break
        else:
            topic, tag = {"line": npc["default"]}, f"npc:{npc_name}:default"
        if not set(topic.get("needs", [])) <= position.flags:
            return Round(self._say(topic["blocked"]))
        if topic.get("again") and set(topic.get("gain", [])) <= position.flags:
            return Round(self._say(topic["again"]))
        if topic.get("check"):
            return Round(self._say(topic["text"]), self._check(position, topic["check"]), tag)
        return Round(tool=("speak_as_npc", {"npc": npc_name, "direction": f"{_CALL}{tag}"}), tag=tag)

    def _act(self, position: Position, action: dict, tag: str) -> Round:
        if not set(action.get("needs", [])) <= position.flags:
            return Round(self._say(action["blocked"]))
        if action.get("again") and set(action.get("gain", [])) <= position.flags:
            return Round(self._say(action["again"]))
        lead = self._say(action["text"]) if action.get("text") else ""
        skipped = action.get("skip_check_with") and set(action["skip_check_with"]) <= position.flags
        if action.get("check") and not skipped:
            return Round(lead, self._check(position, action["check"]), tag)
        if action.get("speak"):
            npc = action["speak"]
            return Round(lead, ("speak_as_npc", {"npc": npc, "direction": f"{_CALL}npc:{npc}:default"}), tag)
        if skipped:
            lead = f"{lead}\n\n{self._say(action['success'])}"
        return self._outcome(position, action, lead, success=True)

    def _outcome(self, position: Position, action: dict, said: str, *, success: bool) -> Round:
        """What follows an action's check (or the action, when it has none)."""
        if action.get("ends") and success:
            ending = adventure()["endings"][action["ends"]]
            self._end(action["ends"])
            said = f"{said}\n\n{self._say(ending['text'])}".strip()
            done = (
                "set_quest",
                {"name": self._say(adventure()["opening"]["quest"]["name"]), "status": "completed"},
            )
            return Round(said, ("present", self._title_card(ending["title"])), "end", (done,))
        if success:
            self._gain(action.get("gain", []))
            if action.get("go"):
                self._go(action["go"])
        given = (
            (self._give(action["item"], position.actor),)
            if action.get("item") and success and position.has_sheet
            else ()
        )
        if action.get("present") and success:
            handout = {
                key: value if key == "template" else text_in(value, self.locale)
                for key, value in action["present"].items()
            }
            return Round(said, ("present", handout), "handout", given)
        if given:
            return Round(said, given[0], "item")
        return Round(said)

    def _give(self, item: dict, actor: str) -> tuple[str, dict]:
        """The Keeper's `give_item` call for one of the adventure's items."""
        arguments = {"character": actor, "item": self._say(item["name"]), "kind": item.get("kind", "misc")}
        if item.get("description"):
            arguments["description"] = self._say(item["description"])
        return "give_item", arguments

    def _next_round(self, position: Position, follows: str, verdict: bool) -> Round:
        book = adventure()
        kind, _, rest = follows.partition(":")
        if kind == "open" and rest == "title":
            opening = book["opening"]
            return Round(
                self._say(opening["text"]),
                ("speak_as_npc", {"npc": opening["npc"], "direction": f"{_CALL}open"}),
                "open:npc",
            )
        if kind == "open" and rest == "npc":
            self._go("harbour")
            opening = book["opening"]
            quest = {
                "name": self._say(opening["quest"]["name"]),
                "description": self._say(opening["quest"]["description"]),
            }
            holder = position.actor if position.has_sheet else self._first_player()
            given = tuple(self._give(item, holder) for item in opening.get("items", []) if holder)
            return Round(self._say(opening["after"]), ("set_quest", quest), "open:gear", given)
        if kind == "npc":
            npc_name, _, number = rest.rpartition(":")
            npc = book["npcs"][npc_name]
            topic = npc["topics"][int(number)] if number.isdigit() else {}
            if topic.get("check"):
                said = self._say(topic["success" if verdict else "failure"])
                if verdict:
                    self._gain(topic.get("gain", []))
                return Round(said)
            self._gain(topic.get("gain", []))
            return Round()
        if kind == "act":
            place, _, number = rest.rpartition(":")
            action = book["places"][place]["actions"][int(number)]
            if action.get("check"):
                said = self._say(action["success" if verdict else "failure"])
                return self._outcome(position, action, said, success=verdict)
            return self._outcome(position, action, "", success=True)
        return Round()  # after a handout or an ending's card: the turn is over

    # --- words -------------------------------------------------------------------------

    def _say(self, options: dict, line: str = "") -> str:
        return text_in(options, self.locale, line)

    def _title_card(self, title: dict, act: dict | None = None) -> dict:
        book = adventure()
        card = {"template": "title_card", "title": self._say(title), "subtitle": self._say(book["subtitle"])}
        if act:
            card["act"] = self._say(act)
        return card

    def _check(self, position: Position, skill: str) -> tuple[str, dict]:
        arguments: dict = {"character": position.actor, "skill": skill}
        if position.die == "d20":
            # d20 + the character's own modifier against a DC, never the adventure's
            # percentage as a modifier: the skill by its d20 name, a regular check's DC.
            d20 = adventure()["d20"]
            arguments.update(skill=d20["skills"][skill], dc=d20["dc"]["regular"])
        elif skill not in position.skills:  # a sheet without the skill: the adventure's value
            arguments["value"] = adventure()["skills"][skill]
        return "skill_check", arguments

    async def complete(self, messages: list[dict]) -> str:
        """An NPC's line: the adventure's, named by the direction."""
        direction = str(messages[-1].get("content", "")).removeprefix(_CALL)
        book = adventure()
        if direction == "open":
            return self._say(book["opening"]["line"])
        kind, _, rest = direction.partition(":")
        npc_name, _, number = rest.rpartition(":")
        npc = book["npcs"].get(npc_name)
        if kind != "npc" or npc is None:
            return direction
        topic = npc["topics"][int(number)] if number.isdigit() else {"line": npc["default"]}
        return self._say(topic["line"])


def _matches(line: str, words: dict) -> bool:
    return mentions(line, words.get("en", []) + words.get("zh", []))


def _last_step(messages: list[dict]) -> tuple[str | None, bool]:
    """The step this turn's last tool call belonged to (None: this is the turn's first
    round) and whether the check it asked for succeeded."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    calls = [m for m in messages[last_user + 1 :] if m.get("role") == "assistant" and m.get("tool_calls")]
    if not calls:
        return None, False
    call_id = str(calls[-1]["tool_calls"][0].get("id", ""))
    step = call_id.removeprefix(_CALL).rpartition(":")[0] if call_id.startswith(_CALL) else ""
    return step, "(success)" in str(messages[-1].get("content", ""))
