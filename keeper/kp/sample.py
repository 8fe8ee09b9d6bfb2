"""The offline sample Keeper: a scripted Keeper that plays a short adventure of our own
when no usable model is configured.

It is a model like any other to the turn loop (`stream` / `complete`): it streams its
narration in small pieces, asks for real checks through the same tools, and reads
their results before it goes on. `demo_setup` installs the adventure into an empty
room when a keeper sends the guided action (DECISIONS "Demo").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.db import transaction
from django.db.models import F

from keeper import characters
from keeper.llm.client import StreamEvent, TextDelta, ToolCall, ToolCalls
from keeper.models import Character, KeeperNote, Npc, Story
from rooms.models import TranscriptEntry, TurnEvent

GUIDED_ACTIONS = ("Start the built-in sample adventure", "开始内置示例冒险")
MODULE_ID = "sample"
CHUNK_WORDS = 3
CHUNK_PAUSE = 0.01  # seconds between pieces: streamed like a model, without the wait


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


TITLE = _t("The Lamp at Gull Rock", "鸥岩灯塔")
INTRO = _t(
    "Autumn 1923. The lighthouse on Gull Rock, a mile off a grey fishing town, has been dark for "
    "three nights. The harbour master wants someone to row out and learn why.",
    "1923 年秋。离一座灰色渔镇一英里外的鸥岩灯塔已经连续三晚没有亮灯。港务长想找人划船过去看看究竟。",
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

    text: dict[str, str]
    tool: tuple[str, dict] | None = None
    after: dict[str, dict[str, str]] | None = None
    scene: dict[str, str] | None = None


BEATS: tuple[tuple[Step, ...], ...] = (
    (
        Step(
            _t(
                "Rain needles the harbour of Kingsmouth as the last light goes. Out on Gull Rock the "
                "lighthouse stands black against the clouds: dark, for the third night running. "
                "A stocky woman in an oilskin hurries down the quay towards you.",
                "夜色降临，细雨打在金斯茅斯港上。远处鸥岩上的灯塔黑沉沉地立在云下——已经是第三晚没亮了。"
                "一个穿油布雨衣的矮壮女人沿着码头朝你快步走来。",
            ),
            ("speak_as_npc", {"npc": "Ruth Cobb", "direction": "_ruth"}),
            scene=_t("Kingsmouth harbour", "金斯茅斯港"),
        ),
        Step(
            _t(
                "She presses a lantern into your hands and points at a dinghy knocking against the "
                "steps. **What do you do?**",
                "她把一盏提灯塞进你手里，指了指台阶边撞来撞去的小艇。**你要怎么做？**",
            )
        ),
    ),
    (
        Step(
            _t(
                "You row out through the swell. The rock rises slick and black, and the lighthouse door "
                "stands ajar, creaking in the wind. You raise the lantern and study the threshold...",
                "你在浪涌中划向鸥岩。礁石湿滑漆黑，灯塔的门半开着，在风里吱呀作响。你举起提灯，仔细打量门槛……",
            ),
            ("skill_check", {"skill": "spot_hidden"}),
            scene=_t("The foot of the lighthouse", "灯塔脚下"),
        ),
        Step(
            _t("**Up the stairs, or call out first?**", "**直接上楼，还是先喊一声？**"),
            after={
                "success": _t(
                    "Fresh scratches score the iron frame from the *inside*, as if someone had fought "
                    "to keep the door shut. A chain lies coiled on the steps.",
                    "门框内侧有新鲜的划痕，像是有人拼命想从*里面*把门关死。台阶上盘着一条铁链。",
                ),
                "failure": _t(
                    "Salt, rust and wet stone: nothing you can make sense of in this light.",
                    "盐渍、铁锈和湿石头——这样的光线下你看不出什么名堂。",
                ),
            },
        ),
    ),
    (
        Step(
            _t(
                "Boots scrape above. A gaunt man comes down the spiral stair with a candle, squinting "
                "at you as if you were the storm itself.",
                "楼上传来靴子刮擦声。一个瘦削的男人举着蜡烛走下螺旋楼梯，眯眼看着你，仿佛你就是那场风暴。",
            ),
            ("speak_as_npc", {"npc": "Silas Marsh", "direction": "_silas"}),
            scene=_t("The lighthouse stair", "灯塔楼梯"),
        ),
        Step(
            _t("You watch his face as he speaks...", "他说话时，你留意着他的表情……"),
            ("skill_check", {"skill": "psychology"}),
        ),
        Step(
            _t("**What do you say to him?**", "**你对他说什么？**"),
            after={
                "success": _t(
                    "He is not lying so much as terrified. His eyes keep sliding to the space under "
                    "the stairs.",
                    "他与其说在撒谎，不如说是吓坏了。他的目光总是飘向楼梯底下。",
                ),
                "failure": _t(
                    "His face gives you nothing but weariness.",
                    "你从他脸上只读出疲惫。",
                ),
            },
        ),
    ),
    (
        Step(
            _t(
                "Under the stairs, wrapped in oilcloth, you find a water-stained logbook. The last pages "
                "are crowded with a cramped hand. You try to make sense of them...",
                "在楼梯下，你找到一本裹着油布、满是水渍的日志。最后几页挤满了潦草的字迹。你试着读懂它们……",
            ),
            ("skill_check", {"skill": "library_use"}),
            scene=_t("Under the stairs", "楼梯之下"),
        ),
        Step(
            _t(
                "Far below the rock, muffled by fathoms of water, a bell begins to toll.\n\n"
                "*This is where the sample adventure ends. A keeper can connect a real model with "
                "`.model` to play on.*",
                "在礁石下方很深的地方，隔着重重海水，一口钟开始鸣响。\n\n"
                "*示例冒险到此结束。守秘人可以用 `.model` 接入真正的模型继续游戏。*",
            ),
            after={
                "success": _t(
                    "The entries speak of a chapel that sank with the old village, and of a bell that "
                    "answers the lamp. *Every night I light it, the bell rings closer.*",
                    "日志提到一座随旧村一起沉入海底的小教堂，还有一口会回应灯光的钟。*我每点一次灯，钟声就更近一分。*",
                ),
                "failure": _t(
                    "The ink has run; you catch only one line: *the bell rings closer*.",
                    "墨迹已经晕开，你只认出一句：*钟声更近了*。",
                ),
            },
        ),
    ),
)
NPC_LINES = {
    "_ruth": _t(
        "Friend, you look like someone who can hold an oar. Silas hasn't lit that lamp in three nights, "
        "and I'll not send my boats past a dark rock. Will you row out?",
        "朋友，你看着像是握得住桨的人。西拉斯已经三晚没点灯了，我可不敢让船经过黑着的礁石。你愿意划过去看看吗？",
    ),
    "_silas": _t(
        "You shouldn't have come. The lamp stays dark. It's better dark. Go back before the tide turns.",
        "你们不该来。灯不能亮。黑着更好。趁潮水还没转向，回去吧。",
    ),
}
EPILOGUE = _t(
    "The sample adventure is over. A keeper can connect a model with `.model` to keep playing, "
    "or start afresh with `.reset all`.",
    "示例冒险已经结束。守秘人可以用 `.model` 接入模型继续，或用 `.reset all` 重新开始。",
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
        story.module_title = TITLE[locale]
        story.module_intro = INTRO[locale]
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


def _chunks(text: str) -> list[str]:
    words = text.split(" ")
    return [
        " ".join(words[i : i + CHUNK_WORDS]) + (" " if i + CHUNK_WORDS < len(words) else "")
        for i in range(0, len(words), CHUNK_WORDS)
    ]


class SampleKeeper:
    """The scripted Keeper of the sample adventure (see the module docstring)."""

    def __init__(self, room_id: int, member_id: str = "") -> None:
        self.room_id = room_id
        self.member_id = member_id

    def _position(self) -> tuple[Story | None, str, str]:
        story = Story.objects.filter(room_id=self.room_id).first()
        mine = Character.objects.filter(room_id=self.room_id, owner=self.member_id, active=True).first()
        anyone = mine or Character.objects.filter(room_id=self.room_id, active=True).order_by("id").first()
        locale = "zh" if story and story.module_title == TITLE["zh"] else "en"
        return story, anyone.name if anyone else "", locale

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """The next round of the current beat, read off the conversation so far."""
        story, investigator, locale = await database_sync_to_async(self._position)()
        if story is None or story.module_id != MODULE_ID:
            return
        if story.progress >= len(BEATS):
            for piece in _chunks(EPILOGUE[locale]):
                yield TextDelta(piece)
            return
        beat = BEATS[story.progress]
        # Rounds already played in this turn follow the turn's last user line.
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        rounds_done = sum(
            1 for m in messages[last_user + 1 :] if m.get("role") == "assistant" and m.get("tool_calls")
        )
        step = beat[min(rounds_done, len(beat) - 1)]
        text = step.text[locale]
        if step.after:
            verdict = "success" if "(success)" in str(messages[-1].get("content", "")) else "failure"
            text = step.after[verdict][locale] + "\n\n" + text
        for piece in _chunks(text):
            await asyncio.sleep(CHUNK_PAUSE)
            yield TextDelta(piece)
        if step.tool is None:
            await database_sync_to_async(self._advance)()
            return
        if step.scene:
            await database_sync_to_async(self._set_scene)(step.scene[locale])
        name, arguments = step.tool
        if name == "skill_check":
            arguments = {**arguments, "character": investigator}
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
        return NPC_LINES.get(direction, {}).get(locale, direction)
