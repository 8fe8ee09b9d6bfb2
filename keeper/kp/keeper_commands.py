"""Commands that belong to the AI Keeper: `.npc`, `.recap`, `.report`, `.model`.

Every answer here is private to the caller. `.model key` never echoes its argument:
the echo the caller sees is masked, and commands never enter the transcript.
"""

from __future__ import annotations

from collections import Counter

from keeper import skill_catalog
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.llm import config as llm_config
from keeper.llm.providers import CATALOG
from keeper.models import KeeperNote, Npc, Story
from rooms.models import Speaker, TranscriptEntry, TurnEvent

RECAP_LINES = 8


@command(
    "npc",
    help_en="NPCs: .npc [list|show <name>], .npc add <name> | <persona> | <secret>, .npc del <name> (keeper)",
    help_zh="NPC：.npc [list|show 名字]，.npc add 名字 | 形象 | 秘密，.npc del 名字（守秘人）",
)
def npc(arguments: str, caller: Caller) -> CommandReply:
    word, _, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("add", "del") and not caller.is_keeper:
        return keeper_refusal(caller)
    if word == "add":
        name, _, more = rest.partition("|")
        persona, _, secret = more.partition("|")
        name = name.strip()[:64]
        if not name:
            return CommandReply(
                caller.say("Use .npc add <name> | <persona> | <secret>.", "用法：.npc add 名字 | 形象 | 秘密")
            )
        Npc.objects.update_or_create(
            room_id=caller.room_id,
            name=name,
            defaults={"persona": persona.strip()[:2000], "secret": secret.strip()[:2000]},
        )
        return CommandReply(caller.say("NPC {name} saved.", "已保存 NPC {name}。", name=name))
    if word == "del":
        deleted, _ = Npc.objects.filter(room_id=caller.room_id, name__iexact=rest).delete()
        if not deleted:
            return CommandReply(caller.say("No NPC called {name}.", "没有名为 {name} 的 NPC。", name=rest))
        return CommandReply(caller.say("NPC {name} removed.", "已删除 NPC {name}。", name=rest))
    npcs = Npc.objects.filter(room_id=caller.room_id)
    if word == "show":
        npcs = npcs.filter(name__iexact=rest)
    elif word not in ("", "list"):
        return CommandReply(
            caller.say(
                "Use .npc, .npc show <name>, .npc add or .npc del.",
                "用法：.npc、.npc show、.npc add、.npc del",
            )
        )
    lines = []
    for record in npcs:
        line = f"{record.name}: {record.persona or '—'}"
        if caller.is_keeper and record.secret:  # the secret is the keeper's alone
            line += caller.say(" [secret: {s}]", " [秘密：{s}]", s=record.secret)
        lines.append(line)
    return CommandReply("\n".join(lines) or caller.say("No NPCs yet.", "还没有 NPC。"))


@command("recap", help_en="the story so far (no spoilers)", help_zh="前情提要（无剧透）")
def recap(arguments: str, caller: Caller) -> CommandReply:
    """Only what the table saw: the module's public intro, the scene, the clock and
    the last story lines. Nothing the keeper keeps back is read here."""
    story = Story.objects.filter(room_id=caller.room_id).first()
    lines = []
    if story and story.module_title:
        lines += [f"**{story.module_title}**", story.module_intro]
    if story and story.scene_name:
        lines.append(caller.say("Scene: {s}", "场景：{s}", s=story.scene_name))
    if story and story.clock_minutes is not None:
        lines.append(caller.say("Time: {t}", "时间：{t}", t=story.clock_text()))
    recent = list(
        TranscriptEntry.objects.filter(
            room_id=caller.room_id, speaker__in=[Speaker.PLAYER, Speaker.KEEPER, Speaker.NPC]
        ).order_by("-id")[:RECAP_LINES]
    )
    if recent:
        lines.append(caller.say("So far:", "目前为止："))
        for entry in reversed(recent):
            text = entry.text if len(entry.text) <= 240 else entry.text[:239] + "…"
            lines.append(f"- {entry.name or caller.say('Keeper', '守秘人')}: {text}")
    return CommandReply("\n".join(lines) or caller.say("Nothing has happened yet.", "故事还没有开始。"))


@command(
    "report", help_en="the session log: lines, rolls, successes", help_zh="跑团记录：发言、掷骰、成功次数"
)
def report(arguments: str, caller: Caller) -> CommandReply:
    """Counts over the room's story: who spoke, who rolled, how checks went (only the
    rolls the caller could see)."""
    spoke = Counter(
        entry.name or entry.speaker
        for entry in TranscriptEntry.objects.filter(room_id=caller.room_id).only("name", "speaker")
    )
    rolls, successes = Counter(), Counter()
    for event in TurnEvent.objects.filter(room_id=caller.room_id):
        if event.frame.get("type") != "dice":
            continue
        if not event.visible_to(member_id=caller.member_id, is_keeper=caller.is_keeper):
            continue
        actor = str(event.frame.get("actor", "?"))
        rolls[actor] += 1
        if (event.frame.get("outcome") or {}).get("success"):
            successes[actor] += 1
    if not spoke and not rolls:
        return CommandReply(caller.say("Nothing to report yet.", "暂无记录。"))
    lines = [caller.say("Session report", "跑团记录")]
    lines += [caller.say("{who}: {n} lines", "{who}：{n} 句", who=who, n=n) for who, n in spoke.most_common()]
    lines += [
        caller.say(
            "{who}: {n} rolls, {ok} successful checks",
            "{who}：掷骰 {n} 次，成功 {ok} 次",
            who=who,
            n=n,
            ok=successes[who],
        )
        for who, n in rolls.most_common()
    ]
    story = Story.objects.filter(room_id=caller.room_id).first()
    if story and story.ai_turns:
        lines.append(
            caller.say(
                "Keeper turns: {t}; tokens in {i}, out {o}",
                "守秘人回合：{t}；输入 {i} 个 token，输出 {o} 个",
                t=story.ai_turns,
                i=story.input_tokens,
                o=story.output_tokens,
            )
        )
    return CommandReply("\n".join(lines))


def _current(caller: Caller) -> str:
    current = llm_config.resolve()
    if not current.usable:
        state = caller.say("offline sample Keeper", "离线示例守秘人")
        if current.provider in CATALOG:
            state += caller.say(" ({p} has no key yet)", "（{p} 尚未设置密钥）", p=current.provider)
        return caller.say("Model: {s}", "模型：{s}", s=state)
    key = current.key_masked or caller.say("no key", "无密钥")
    return caller.say(
        "Model: {p} / {m} at {u} (key {k})",
        "模型：{p} / {m}，地址 {u}（密钥 {k}）",
        p=current.provider,
        m=current.chat_model,
        u=current.base_url,
        k=key,
    )


@command(
    "model",
    help_en="the AI model: .model [list]; keeper: .model set <provider> [model] [url], .model key|reset",
    help_zh="AI 模型：.model [list]；守秘人：.model set 提供方 [模型] [地址]、.model key、.model reset",
)
def model(arguments: str, caller: Caller) -> CommandReply:
    word, _, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("", "list"):
        catalog = "\n".join(f"  {p.id}: {p.base_url} ({p.default_model})" for p in CATALOG.values())
        return CommandReply(_current(caller) + "\n" + caller.say("Providers:", "提供方：") + "\n" + catalog)
    if word not in ("set", "key", "reset"):
        return CommandReply(
            caller.say(
                "Use .model, .model set, .model key or .model reset.",
                "用法：.model、.model set、.model key、.model reset",
            )
        )
    if not caller.is_keeper:
        reply = keeper_refusal(caller)
        reply.echo = ".model " + word + (" ****" if word == "key" else "")
        return reply
    if word == "key":
        if not rest or " " in rest:
            reply = CommandReply(caller.say("Use .model key <key>.", "用法：.model key 密钥"))
        else:
            try:
                llm_config.save_key(rest)
                reply = CommandReply(
                    caller.say(
                        "Key saved for this provider and endpoint only. ",
                        "密钥已保存，仅用于当前提供方和地址。",
                    )
                    + _current(caller)
                )
            except ValueError:
                reply = CommandReply(
                    caller.say(
                        "Choose a provider first: .model set <provider>.", "请先选择提供方：.model set 提供方"
                    )
                )
        reply.echo = ".model key ****"
        return reply
    if word == "reset":
        llm_config.reset()
        return CommandReply(
            caller.say("Back to the server's configuration. ", "已恢复服务器配置。") + _current(caller)
        )
    parts = rest.split()
    if not parts or parts[0].lower() not in CATALOG or len(parts) > 3:
        names = ", ".join(CATALOG)
        return CommandReply(
            caller.say(
                "Use .model set <provider> [model] [url]; providers: {n}",
                "用法：.model set 提供方 [模型] [地址]；提供方：{n}",
                n=names,
            )
        )
    provider, chat_model, base_url = parts[0].lower(), "", ""
    for part in parts[1:]:
        if part.startswith(("http://", "https://")):
            base_url = part
        else:
            chat_model = part
    llm_config.select(provider, chat_model[:200], base_url[:500])
    return CommandReply(caller.say("Switched. ", "已切换。") + _current(caller))


@command(
    "module",
    help_en="the module: .module; keeper: .module set <title> | <intro for players> | <truth>",
    help_zh="模组：.module；守秘人：.module set 标题 | 玩家可知的开场 | 真相",
)
def module(arguments: str, caller: Caller) -> CommandReply:
    word, _, rest = arguments.strip().partition(" ")
    if word.lower() == "set":
        if not caller.is_keeper:
            return keeper_refusal(caller)
        title, _, more = rest.partition("|")
        intro, _, truth = more.partition("|")
        if not title.strip():
            return CommandReply(
                caller.say(
                    "Use .module set <title> | <intro> | <truth>.", "用法：.module set 标题 | 开场 | 真相"
                )
            )
        story = Story.of(caller.room_id)
        story.module_id = "custom"
        story.module_title = title.strip()[:200]
        story.module_intro = intro.strip()[:4000]
        story.module_truth = truth.strip()[:4000]
        story.save()
        return CommandReply(caller.say("Module {t} set.", "已设置模组 {t}。", t=story.module_title))
    story = Story.objects.filter(room_id=caller.room_id).first()
    if story is None or not story.module_title:
        return CommandReply(caller.say("No module yet.", "尚未设置模组。"))
    text = f"**{story.module_title}**\n{story.module_intro}"
    if caller.is_keeper and story.module_truth:
        text += "\n" + caller.say("Truth (keeper only): {t}", "真相（仅守秘人）：{t}", t=story.module_truth)
    return CommandReply(text)


@command(
    "note",
    help_en="keeper notes: .note <text>, .note to list them",
    help_zh="守秘人笔记：.note 内容；.note 查看",
    keeper_only=True,
)
def note(arguments: str, caller: Caller) -> CommandReply:
    text = arguments.strip()
    if text:
        KeeperNote.objects.create(room_id=caller.room_id, text=text[:2000])
        return CommandReply(caller.say("Noted (keepers only).", "已记下（仅守秘人可见）。"))
    notes = KeeperNote.objects.filter(room_id=caller.room_id).order_by("-id")[:20]
    return CommandReply(
        "\n".join(f"- {n.text}" for n in reversed(notes)) or caller.say("No notes yet.", "还没有笔记。")
    )


@command(
    "skill",
    help_en="Keeper skills: .skill [list]; keeper: .skill enable|disable <id>",
    help_zh="守秘人技能：.skill [list]；守秘人：.skill enable|disable <id>",
)
def skill(arguments: str, caller: Caller) -> CommandReply:
    word, _, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip().lower()
    if word in ("enable", "disable"):
        if not caller.is_keeper:
            return keeper_refusal(caller)
        try:
            skill_catalog.set_enabled(caller.room_id, rest, word == "enable")
        except KeyError:
            return CommandReply(
                caller.say(
                    "No skill called {id}; see .skill list.",
                    "没有名为 {id} 的技能；见 .skill list。",
                    id=rest,
                )
            )
        done = caller.say("enabled", "已启用") if word == "enable" else caller.say("disabled", "已停用")
        return CommandReply(
            caller.say("Skill {id} {done}.", "技能 {id} {done}。", id=rest, done=done), private=False
        )
    if word not in ("", "list"):
        return CommandReply(
            caller.say(
                "Use .skill, .skill enable <id> or .skill disable <id>.",
                "用法：.skill、.skill enable <id>、.skill disable <id>",
            )
        )
    lines = []
    for entry in skill_catalog.listing(caller.room_id, caller.locale):
        mark = "[x]" if entry["enabled"] else "[ ]"
        lines.append(
            f"{mark} {entry['id']}: {entry['name']} ({entry['content_rating']}): {entry['description']}"
        )
    return CommandReply("\n".join(lines) or caller.say("No skills on this server.", "本服务器没有技能。"))
