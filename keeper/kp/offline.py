"""The offline Keeper: what answers a room's story lines when no model is usable.

A model like any other to the turn loop (`stream` / `complete`), so its turns have a
model's frame order: busy, the narration streaming, a real check through the game's
check function when the line calls for one, an NPC's line when it names one, the
closing narration, idle, state. Its first answer in a room opens with a `Notice` that
no model is connected: a `system` notice to the table, never the story. What it says
comes from `phrasebook.yaml`: the player's words pick an intent, the room's rule pack
picks the skill, the room's language picks the text, and only what players may see
fills it in (the scene, the module's title, names), never a secret.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from channels.db import database_sync_to_async
from django.conf import settings

from keeper import game, lore
from keeper.kp.sample import streamed
from keeper.kp.words import mentions, names_npc
from keeper.llm.client import Notice, StreamEvent, ToolCall, ToolCalls
from keeper.models import LoreEntry, Npc, Story
from rooms.models import Speaker, TranscriptEntry

PHRASEBOOK = Path(__file__).with_name("phrasebook.yaml")
# A lower-case letter that starts a sentence (a filled-in place name may start one).
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([a-z])")


@cache
def phrasebook() -> dict:
    """The phrasebook, read once."""
    return yaml.safe_load(PHRASEBOOK.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Scene:
    """What the offline Keeper knows of the room when it answers: public things only."""

    locale: str
    line: str
    actor: game.Actor
    place: str
    npc: str
    first_time: bool


def _pick(options: list[str], line: str) -> str:
    """The same words pick the same option."""
    digest = int(hashlib.sha256(line.encode("utf-8")).hexdigest(), 16)
    return options[digest % len(options)]


def intent_of(line: str) -> str | None:
    """The first intent whose words the line mentions, or None (plain narration)."""
    for name, intent in phrasebook()["intents"].items():
        if mentions(line, intent["words"]["en"] + intent["words"]["zh"]):
            return name
    return None


class OfflineKeeper:
    """The offline Keeper of one room, answering one member's line in the room's
    language (`locale`, as the turn resolved it)."""

    # No model behind it: the campaign's summary is folded by extraction.
    writes_summaries = False

    def __init__(self, room_id: int, member_id: str, locale: str) -> None:
        self.room_id = room_id
        self.member_id = member_id
        self.locale = locale if locale in ("en", "zh") else settings.TRPG_LOCALE

    def _scene(self) -> Scene:
        latest = (
            TranscriptEntry.objects.filter(room_id=self.room_id, speaker=Speaker.PLAYER)
            .order_by("-id")
            .first()
        )
        member_id = latest.member_id if latest else self.member_id
        actor = game.Actor.member(self.room_id, member_id, latest.name if latest else "")
        if actor.character is not None:
            actor = game.Actor(self.room_id, actor.character.name, actor.character)
        story = Story.objects.filter(room_id=self.room_id).first()
        book = phrasebook()
        place = (story.scene_name or story.module_title) if story else ""
        line = latest.text if latest else ""
        npc = next((n.name for n in Npc.objects.filter(room_id=self.room_id) if names_npc(line, n.name)), "")
        return Scene(
            locale=self.locale,
            line=line,
            actor=actor,
            place=place or book["place"][self.locale],
            npc=npc,
            first_time=not TranscriptEntry.objects.filter(
                room_id=self.room_id, speaker=Speaker.KEEPER
            ).exists(),
        )

    def _say(self, scene: Scene, options: dict[str, list[str]] | dict[str, str]) -> str:
        chosen = options.get(scene.locale) or options["en"]
        text = chosen if isinstance(chosen, str) else _pick(chosen, scene.line)
        filled = text.format(actor=scene.actor.name or "?", place=scene.place, npc=scene.npc)
        return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), filled)

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """This round of the answer: narration, then at most one tool call."""
        scene = await database_sync_to_async(self._scene)()
        book = phrasebook()
        # Rounds already played in this turn follow its last user line.
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        rounds_done = sum(
            1 for m in messages[last_user + 1 :] if m.get("role") == "assistant" and m.get("tool_calls")
        )
        if rounds_done == 0:
            text, call = await database_sync_to_async(self._first_round)(scene)
            if scene.first_time:  # a notice, not the story: the chronicle never keeps it
                yield Notice(self._say(scene, book["first_time"]))
            # Only the first round's narration recalls a fact (looked up once a turn).
            fact = await database_sync_to_async(_public_fact)(self.room_id, scene.line)
            if fact is not None:
                title, content = fact
                recall = book["recall"].get(scene.locale) or book["recall"]["en"]
                text += "\n\n" + recall.format(actor=scene.actor.name or "?", title=title, content=content)
        else:
            text, call = self._closing(scene, messages), None
        async for piece in streamed(text):
            yield piece
        if call is not None:
            name, arguments = call
            yield ToolCalls(
                [ToolCall(f"offline_{rounds_done}", name, json.dumps(arguments, ensure_ascii=False))]
            )

    def _first_round(self, scene: Scene) -> tuple[str, tuple[str, dict] | None]:
        book = phrasebook()
        if scene.npc:
            return self._say(scene, book["npc"]["opening"]), (
                "speak_as_npc",
                {"npc": scene.npc, "direction": "reply"},
            )
        intent = intent_of(scene.line)
        check = self._check(scene, intent) if intent else None
        if check is None:
            return self._say(scene, book["narration"]), None
        return self._say(scene, book["intents"][intent]["opening"]), ("skill_check", check)

    def _check(self, scene: Scene, intent: str) -> dict | None:
        """The skill_check arguments for this intent under the actor's rules, or None
        when the pack knows none of its skills."""
        pack = scene.actor.pack()
        skill = next(
            (
                key
                for name in phrasebook()["intents"][intent]["skills"]
                if (key := pack.sheet.canonical(name))
            ),
            None,
        )
        if skill is None:
            return None
        arguments: dict = {"character": scene.actor.name, "skill": skill}
        if scene.actor.character is None:  # no sheet: the skill's base value (d20: no modifier)
            base = pack.sheet.skills.get(skill)
            arguments["value"] = base if isinstance(base, int) and pack.check.roll == "d100" else 0
        return arguments

    def _closing(self, scene: Scene, messages: list[dict]) -> str:
        book = phrasebook()
        if scene.npc:
            return self._say(scene, book["npc"]["closing"])
        result = str(messages[-1].get("content", "")) if messages else ""
        verdict = "success" if "(success)" in result else "failure"
        intent = intent_of(scene.line)
        return self._say(scene, book["intents"][intent][verdict]) if intent else ""

    async def complete(self, messages: list[dict]) -> str:
        """An NPC's line (never its secret: the phrasebook's words only)."""
        scene = await database_sync_to_async(self._scene)()
        return self._say(scene, phrasebook()["npc"]["lines"])


def _public_fact(room_id: int, line: str) -> tuple[str, str] | None:
    """The first fact of the room's lore for everyone whose title or a keyword the line
    mentions (a keeper-only fact is never looked at)."""
    shared = LoreEntry.objects.filter(room_id=room_id, visibility=LoreEntry.Visibility.EVERYONE)
    for entry in shared.order_by("order", "id"):
        if any(lore.mentions(line, word) for word in [entry.title, *entry.keywords]):
            return entry.title, entry.content[:500]
    return None
