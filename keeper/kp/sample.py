"""The offline sample Keeper: a scripted Keeper that plays a short adventure of our own
when no usable model is configured.

It is a model like any other to the turn loop (`stream` / `complete`): it streams its
narration in small pieces, asks for real checks through the same tools, and reads
their results before it goes on. `demo_setup` installs the adventure into an empty
room when a keeper sends the guided action (docs/decisions.md, "The offline Keeper
and the sample adventure").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.db.models import F

from keeper import characters
from keeper.llm.client import StreamEvent, TextDelta, ToolCall, ToolCalls
from keeper.models import Character, KeeperNote, Npc, Story
from loreweaver.i18n import _, say
from rooms.models import TranscriptEntry, TurnEvent

GUIDED_ACTIONS = ("Start the built-in sample adventure", "开始内置示例冒险")
MODULE_ID = "sample"
CHUNK_WORDS = 3


TITLE = _("The Lamp at Gull Rock")
INTRO = _(
    "Autumn 1923. The lighthouse on Gull Rock, a mile off a grey fishing town, has been dark for "
    "three nights. The harbour master wants someone to row out and learn why."
)
TRUTH = (
    "Silas Marsh put the lamp out on purpose: its beam was calling something up from the drowned "
    "chapel beneath the rock, whose bell he hears at low tide. His log, hidden under the stairs, "
    "tells the whole story."
)
NPCS = (
    (
        "Ruth Cobb",
        "The harbour master: brisk, weathered, chews her pipe when worried, calls everyone 'friend'.",
        "She has taken Silas's money to keep the fishing boats away from the rock.",
    ),
    (
        "Silas Marsh",
        "The lighthouse keeper: gaunt, soft-spoken, eyes red from sleeplessness, flinches at bells.",
        "He hears a drowned bell ring under the rock whenever the lamp is lit.",
    ),
)
SKILLS = {"spot_hidden": 60, "psychology": 50, "library_use": 55, "listen": 50}


@dataclass(frozen=True)
class Step:
    """One round of a beat: narration, then optionally one tool call. `after` maps
    the previous check's result (`success` / `failure`) to narration that opens the step."""

    text: str
    tool: tuple[str, dict] | None = None
    after: dict[str, str] | None = None
    scene: str | None = None


BEATS: tuple[tuple[Step, ...], ...] = (
    (
        # The Stage Director opens the adventure with a title card.
        Step(
            "",
            (
                "present",
                {
                    "template": "title_card",
                    "title": TITLE,
                    "subtitle": _("Kingsmouth, autumn 1923"),
                    "act": _("Act I"),
                },
            ),
        ),
        Step(
            _(
                "Rain needles the harbour of Kingsmouth as the last light goes. Out on Gull Rock the "
                "lighthouse stands black against the clouds: dark, for the third night running. "
                "A stocky woman in an oilskin hurries down the quay towards you."
            ),
            ("speak_as_npc", {"npc": "Ruth Cobb", "direction": "_ruth"}),
            scene=_("Kingsmouth harbour"),
        ),
        Step(
            _(
                "She presses a lantern into your hands and points at a dinghy knocking against the "
                "steps. **What do you do?**"
            )
        ),
    ),
    (
        Step(
            _(
                "You row out through the swell. The rock rises slick and black, and the lighthouse door "
                "stands ajar, creaking in the wind. You raise the lantern and study the threshold..."
            ),
            ("skill_check", {"skill": "spot_hidden"}),
            scene=_("The foot of the lighthouse"),
        ),
        Step(
            _("**Up the stairs, or call out first?**"),
            after={
                "success": _(
                    "Fresh scratches score the iron frame from the *inside*, as if someone had fought "
                    "to keep the door shut. A chain lies coiled on the steps."
                ),
                "failure": _("Salt, rust and wet stone: nothing you can make sense of in this light."),
            },
        ),
    ),
    (
        Step(
            _(
                "Boots scrape above. A gaunt man comes down the spiral stair with a candle, squinting "
                "at you as if you were the storm itself."
            ),
            ("speak_as_npc", {"npc": "Silas Marsh", "direction": "_silas"}),
            scene=_("The lighthouse stair"),
        ),
        Step(
            _("You watch his face as he speaks..."),
            ("skill_check", {"skill": "psychology"}),
        ),
        Step(
            _("**What do you say to him?**"),
            after={
                "success": _(
                    "He is not lying so much as terrified. His eyes keep sliding to the space under "
                    "the stairs."
                ),
                "failure": _("His face gives you nothing but weariness."),
            },
        ),
    ),
    (
        Step(
            _(
                "Under the stairs, wrapped in oilcloth, you find a water-stained logbook. The last pages "
                "are crowded with a cramped hand. You try to make sense of them..."
            ),
            ("skill_check", {"skill": "library_use"}),
            scene=_("Under the stairs"),
        ),
        # The page they found, handed over as a letter (legible or not, it is what they hold).
        Step(
            "",
            (
                "present",
                {
                    "template": "letter",
                    "from": _("S. Marsh, keeper of the Gull Rock light"),
                    "date": _("14 October 1923"),
                    "body": _(
                        "The ink has run across most of the page. ...low water again... the bell rings "
                        "closer... I will not light it again."
                    ),
                },
            ),
            after={
                "success": _(
                    "The entries speak of a chapel that sank with the old village, and of a bell that "
                    "answers the lamp. *Every night I light it, the bell rings closer.*"
                ),
                "failure": _("The ink has run; you catch only one line: *the bell rings closer*."),
            },
        ),
        Step(
            _(
                "Far below the rock, muffled by fathoms of water, a bell begins to toll.\n\n"
                "*This is where the sample adventure ends. A keeper can connect a real model with "
                "`.model` to play on.*"
            )
        ),
    ),
)
NPC_LINES = {
    "_ruth": _(
        "Friend, you look like someone who can hold an oar. Silas hasn't lit that lamp in three nights, "
        "and I'll not send my boats past a dark rock. Will you row out?"
    ),
    "_silas": _(
        "You shouldn't have come. The lamp stays dark. It's better dark. Go back before the tide turns."
    ),
}
EPILOGUE = _(
    "The sample adventure is over. A keeper can connect a model with `.model` to keep playing, "
    "or start afresh with `.reset all`."
)


def is_guided_action(text: str) -> bool:
    """Whether a line is the demo's guided action."""
    return text.strip() in GUIDED_ACTIONS


def plays_sample(room_id: int) -> bool:
    """Whether the room is playing the sample adventure."""
    return Story.objects.filter(room_id=room_id, module_id=MODULE_ID).exists()


def room_is_empty(room_id: int) -> bool:
    """Nothing has happened here yet: no story, characters, module or NPCs."""
    story = Story.objects.filter(room_id=room_id).first()
    return not (
        TranscriptEntry.objects.filter(room_id=room_id).exists()
        or TurnEvent.objects.filter(room_id=room_id).exists()
        or Character.objects.filter(room_id=room_id).exists()
        or Npc.objects.filter(room_id=room_id).exists()
        or KeeperNote.objects.filter(room_id=room_id).exists()
        or (story is not None and (story.module_id or story.scene_name))
    )


def demo_setup(room_id: int, member_id: str, name: str, locale: str) -> bool:
    """Install the sample adventure if the room is still empty (the caller holds the
    room's turn). Returns False, changing nothing, when it is not."""
    with transaction.atomic():
        if not room_is_empty(room_id):
            return False
        story = Story.of(room_id)
        story.module_id = MODULE_ID
        story.module_title = say(locale, TITLE)
        story.module_intro = say(locale, INTRO)
        story.module_truth = TRUTH
        story.progress = 0
        story.clock_minutes = 19 * 60 + 40
        story.save()
        for npc_name, persona, secret in NPCS:
            Npc.objects.create(room_id=room_id, name=npc_name, persona=persona, secret=secret)
        investigator = characters.character_create(
            room_id=room_id, member_id=member_id, system="coc7", name=name
        )
        investigator.skills.update(SKILLS)
        investigator.save(update_fields=["skills"])
    return True


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


class SampleKeeper:
    """The scripted Keeper of the sample adventure (see the module docstring)."""

    # No model behind it: the campaign's summary is folded by extraction.
    writes_summaries = False

    def __init__(self, room_id: int, member_id: str = "") -> None:
        self.room_id = room_id
        self.member_id = member_id

    def _position(self) -> tuple[Story | None, str, str]:
        story = Story.objects.filter(room_id=self.room_id).first()
        mine = Character.objects.filter(room_id=self.room_id, owner=self.member_id, active=True).first()
        anyone = mine or Character.objects.filter(room_id=self.room_id, active=True).order_by("id").first()
        locale = "zh" if story and story.module_title == say("zh", TITLE) else "en"
        return story, anyone.name if anyone else "", locale

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """The next round of the current beat, read off the conversation so far."""
        story, investigator, locale = await database_sync_to_async(self._position)()
        if story is None or story.module_id != MODULE_ID:
            return
        if story.progress >= len(BEATS):
            for piece in chunks(say(locale, EPILOGUE)):
                yield TextDelta(piece)
            return
        beat = BEATS[story.progress]
        # Rounds already played in this turn follow the turn's last user line.
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        rounds_done = sum(
            1 for m in messages[last_user + 1 :] if m.get("role") == "assistant" and m.get("tool_calls")
        )
        step = beat[min(rounds_done, len(beat) - 1)]
        text = say(locale, step.text) if step.text else ""
        if step.after:
            verdict = "success" if "(success)" in str(messages[-1].get("content", "")) else "failure"
            text = (say(locale, step.after[verdict]) + "\n\n" + text).strip()
        async for piece in streamed(text):
            yield piece
        if step.tool is None:
            await database_sync_to_async(self._advance)()
            return
        if step.scene:
            await database_sync_to_async(self._set_scene)(say(locale, step.scene))
        name, arguments = step.tool
        if name == "skill_check":
            arguments = {**arguments, "character": investigator}
        elif name == "present":
            arguments = {
                key: value if key == "template" else say(locale, value) for key, value in arguments.items()
            }
        call_id = f"sample_{story.progress}_{rounds_done}"
        yield ToolCalls([ToolCall(call_id, name, json.dumps(arguments, ensure_ascii=False))])

    def _set_scene(self, scene: str) -> None:
        Story.objects.filter(room_id=self.room_id).update(scene_name=scene)

    def _advance(self) -> None:
        Story.objects.filter(room_id=self.room_id).update(progress=F("progress") + 1)

    async def complete(self, messages: list[dict]) -> str:
        """An NPC's line: the script's, named by the direction."""
        direction = str(messages[-1].get("content", ""))
        _story, _who, locale = await database_sync_to_async(self._position)()
        line = NPC_LINES.get(direction)
        return say(locale, line) if line else direction
