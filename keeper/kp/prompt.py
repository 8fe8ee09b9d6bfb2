"""What the model is told: the Keeper's brief for a turn, and an NPC's brief.

The Keeper's brief holds everything the keeper knows (the module's truth, NPC secrets,
notes): it goes to the model only. An NPC's brief holds that NPC's own record and the
public scene, and nothing else, so an NPC cannot let slip what it could not know.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from keeper import chronicle, inventory, lore, quests, skill_catalog
from keeper.models import Character, KeeperNote, Npc, Story, TableSettings
from rooms.models import Speaker

# Story lines read for a brief at most; the window decides how many of them go in.
HISTORY_LINES_MAX = 400
LANGUAGES = {"en": "English", "zh": "Simplified Chinese"}

KEEPER_BRIEF = """You are the Keeper: the game master of a tabletop role-playing game played by the \
people in this chat. Narrate vividly and briefly (two short paragraphs at most), in {language}, in \
markdown. The rule system is {system} (house rule {house_rule}).
Rules of the table:
- Never decide a die roll yourself. Every roll, check, sanity check, opposed roll and initiative \
goes through a tool, and you narrate what the tool returned.
- Non-player characters speak only through the speak_as_npc tool; do not write their dialogue \
yourself.
- Keep the players' agency: describe, ask what they do, and never act for their characters.
- Everything under KEEPER ONLY is secret. Never state it, hint at it in passing, or quote it; \
let players discover things through play. Use keeper_note for your own plans.
- Record changes with the tools (update_character, set_scene, advance_clock, give_item, take_item, \
use_item, change_money, set_quest) rather than in prose."""


def _character_line(character: Character) -> str:
    resources = ", ".join(f"{key} {value}" for key, value in character.resources.items())
    skills = ", ".join(f"{key} {value}" for key, value in list(character.skills.items())[:24])
    line = f"- {character.name} ({character.system}; {resources}; skills: {skills or 'base values'})"
    carried = [inventory.quantity_text(item) for item in inventory.items_of(character) if item["quantity"]]
    if carried or character.money:
        line += f"\n  carries: {', '.join(carried) or 'nothing'}; money {character.money}"
    return line + (f"\n  who they are: {character.background[:600]}" if character.background else "")


@dataclass
class Brief:
    """The Keeper's messages for a turn, and where to fold the story after it (None:
    the brief is within `chronicle.FOLD_AT` of the window)."""

    messages: list[dict]
    fold_through: int | None = None


def keeper_brief(
    room_id: int, locale: str, window: int = 0, reserve: int = 0, vector: list[float] | None = None
) -> Brief:
    """The system brief, the summary of the story so far and every story line since it,
    as chat messages (the newest line is the utterance this turn answers). `window` is
    the model's context in tokens (0: the server's default), `reserve` what the tools
    and the reply need of it, `vector` the recent story's embedding (lore by meaning).
    The oldest lines beyond the window are left out (a fold is then overdue). Runs in a
    worker thread."""
    window = window or settings.TRPG_LLM_CONTEXT_WINDOW
    table = TableSettings.of(room_id)
    story = Story.of(room_id)
    summary = chronicle.summary_of(room_id)
    lines = chronicle.unfolded_lines(room_id, summary.through_line_id, HISTORY_LINES_MAX)
    parts = [
        KEEPER_BRIEF.format(
            language=LANGUAGES.get(locale, "English"), system=table.system, house_rule=table.house_rule or "0"
        )
    ]
    for skill in skill_catalog.enabled_in(room_id):
        parts.append(f"SKILL {skill.name}:\n{skill.body}")
    if story.module_title:
        parts.append(f"MODULE: {story.module_title}\n{story.module_intro}")
    if summary.text:
        parts.append(f"THE STORY SO FAR (a summary of earlier play):\n{summary.text}")
    if story.scene_name:
        parts.append(
            f"SCENE: {story.scene_name}" + (f" (focus: {story.scene_focus})" if story.scene_focus else "")
        )
    if story.clock_minutes is not None:
        parts.append(f"TIME: {story.clock_text()}")
    present = Character.objects.filter(room_id=room_id, active=True).order_by("name")
    if present:
        parts.append("INVESTIGATORS:\n" + "\n".join(_character_line(c) for c in present))
    npcs = list(Npc.objects.filter(room_id=room_id))
    if npcs:
        parts.append(
            "NPCS (use their exact names with speak_as_npc):\n"
            + "\n".join(f"- {n.name}: {n.persona}" for n in npcs)
        )
    pursued = quests.entries(room_id)
    shown = [q for q in pursued if not q["secret"]]
    if shown:
        parts.append(
            "QUESTS:\n" + "\n".join(f"- {q['name']} ({q['status']}): {q['description']}" for q in shown)
        )
    reminder = lore.for_brief(room_id, (line.text for line in lines[-lore.SCANNED_LINES :]), vector)
    if reminder.public:
        parts.append("LORE:\n" + "\n".join(f"- {e.title}: {e.content}" for e in reminder.public))
    secrets = [f"Lore ({e.title}): {e.content}" for e in reminder.secret]
    if story.module_truth:
        secrets.append(f"The truth of the module: {story.module_truth}")
    secrets += [f"{n.name}'s secret: {n.secret}" for n in npcs if n.secret]
    secrets += [
        f"Secret quest {q['name']} ({q['status']}): {q['description']}" for q in pursued if q["secret"]
    ]
    secrets += [
        f"Note: {note.text}" for note in KeeperNote.objects.filter(room_id=room_id).order_by("-id")[:20]
    ]
    if summary.keeper_digest:
        secrets.append(f"Earlier keeper-only facts:\n{summary.keeper_digest}")
    if secrets:
        parts.append("KEEPER ONLY:\n" + "\n".join(secrets))
    system = "\n\n".join(parts)
    fixed = chronicle.estimate_tokens(system) + reserve
    fold_through = chronicle.plan_fold(lines, fixed, window)
    lines = _within(lines, window - fixed)
    messages: list[dict] = [{"role": "system", "content": system}]
    for line in lines:
        if line.speaker == Speaker.KEEPER:
            messages.append({"role": "assistant", "content": line.text})
        else:
            messages.append({"role": "user", "content": f"{line.name}: {line.text}"})
    return Brief(messages, fold_through)


def _within(lines: list, budget: int) -> list:
    """The newest lines that fit `budget` tokens (the newest always)."""
    kept, spent = [], 0
    for line in reversed(lines):
        spent += chronicle.estimate_tokens(line.text) + 4
        if kept and spent > budget:
            break
        kept.append(line)
    return list(reversed(kept))


def npc_messages(room_id: int, npc_name: str, direction: str, locale: str) -> tuple[str, list[dict]]:
    """(the NPC's name as recorded, its brief): its own record, the public scene, and
    the Keeper's direction. Runs in a worker thread."""
    npc = Npc.objects.filter(room_id=room_id, name__iexact=npc_name.strip()).first()
    story = Story.of(room_id)
    name = npc.name if npc else npc_name.strip()[:64] or "Stranger"
    brief = [
        f"You are {name}, a character in a tabletop role-playing game. Answer with {name}'s spoken "
        f"words only: one to three sentences in {LANGUAGES.get(locale, 'English')}, no narration, no quotes."
    ]
    if npc is not None and npc.persona:
        brief.append(f"Who you are: {npc.persona}")
    if npc is not None and npc.secret:
        brief.append(f"What only you know (keep it unless there is good reason): {npc.secret}")
    if story.scene_name:
        brief.append(f"Where you are: {story.scene_name}")
    return name, [
        {"role": "system", "content": "\n".join(brief)},
        {"role": "user", "content": direction},
    ]
