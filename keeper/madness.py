"""CoC 7e bouts of madness: `.ti` (temporary, in real time) and `.li` (long-term,
summary) tables, rolled on 1d10 (RULES.md command table). Texts are this project's own."""

from __future__ import annotations

from keeper.commands import Caller, CommandReply, DiceEvent, command
from keeper.dice.roller import roller
from loreweaver import frames

TEMPORARY = [
    (
        "Amnesia: no memory of anything since the last safe place, for 1d10 rounds.",
        "失忆：1d10 轮内记不起离开上一个安全地点后的任何事。",
    ),
    (
        "Psychosomatic blindness, deafness or paralysis for 1d10 rounds.",
        "心因性失明、失聪或肢体瘫痪，持续 1d10 轮。",
    ),
    (
        "Violence: lashes out at friend and foe alike for 1d10 rounds.",
        "暴力倾向：1d10 轮内不分敌我地攻击身边的人。",
    ),
    (
        "Paranoia: trusts no one for 1d10 rounds; every ally is a traitor.",
        "偏执：1d10 轮内不信任任何人，视同伴为叛徒。",
    ),
    (
        "Fixation on a significant person; acts as if they were here, for 1d10 rounds.",
        "执念：1d10 轮内把某位重要之人当作就在身边。",
    ),
    ("Faints and stays down for 1d10 rounds.", "昏厥：倒地不起 1d10 轮。"),
    ("Flees in panic by any means, for 1d10 rounds.", "惊恐逃窜：1d10 轮内不择手段地逃离。"),
    (
        "Hysterics: laughing, weeping or screaming uncontrollably for 1d10 rounds.",
        "歇斯底里：1d10 轮内无法控制地大笑、哭泣或尖叫。",
    ),
    ("A new phobia grips them; they act on it for 1d10 rounds.", "新的恐惧症：1d10 轮内受其支配。"),
    ("A new mania seizes them; they indulge it for 1d10 rounds.", "新的躁狂症：1d10 轮内沉溺其中。"),
]
LONG_TERM = [
    (
        "Amnesia: wakes somewhere unknown 1d10 hours later, remembering only who they are.",
        "失忆：1d10 小时后在陌生地方醒来，只记得自己是谁。",
    ),
    ("Robbed: comes to 1d10 hours later, without valuables.", "被洗劫：1d10 小时后醒来，贵重物品不见了。"),
    (
        "Battered: 1d10 hours later, bruised and hurt, with no memory of how.",
        "遍体鳞伤：1d10 小时后醒来，伤痕累累却不知缘由。",
    ),
    (
        "Violence: an explosion of violence; they come to 1d10 hours later amid the results.",
        "暴力爆发：1d10 小时后醒来，面对自己造成的后果。",
    ),
    (
        "Ideology: acts on a belief in the most extreme way for 1d10 hours.",
        "信念极端化：1d10 小时内以最极端的方式践行某种信念。",
    ),
    (
        "Significant people: drives to reach someone dear, for 1d10 hours.",
        "重要之人：1d10 小时内不顾一切地去找寻某个挚爱之人。",
    ),
    (
        "Institutionalised: wakes 1d10 hours later in a hospital ward or a cell.",
        "被收容：1d10 小时后在病房或牢房中醒来。",
    ),
    (
        "Flees in panic: 1d10 hours later, far away and lost.",
        "惊恐逃离：1d10 小时后发现自己身处远方、迷失方向。",
    ),
    ("A new phobia, and 1d10 hours lost to it.", "新的恐惧症，并为此失去 1d10 小时。"),
    ("A new mania, and 1d10 hours lost to it.", "新的躁狂症，并为此失去 1d10 小时。"),
]


def _bout(table: list[tuple[str, str]], caller: Caller, label_en: str, label_zh: str) -> CommandReply:
    face = roller().die(10)
    duration = roller().die(10)
    en, zh = table[face - 1]
    text = caller.say(
        "{who} — {label} ({face}): {effect} (1d10 = {duration})",
        "{who} —— {label}（{face}）：{effect}（1d10 = {duration}）",
        who=caller.name,
        label=caller.say(label_en, label_zh),
        face=face,
        effect=caller.say(en, zh),
        duration=duration,
    )
    frame = frames.dice(caller.name, "roll", "1d10", [face], face)
    return CommandReply(text, private=False, events=[DiceEvent(frame)])


@command("ti", help_en="temporary madness table", help_zh="临时疯狂症状")
def temporary(arguments: str, caller: Caller) -> CommandReply:
    return _bout(TEMPORARY, caller, "temporary madness", "临时疯狂")


@command("li", help_en="long-term madness table", help_zh="总结疯狂症状")
def long_term(arguments: str, caller: Caller) -> CommandReply:
    return _bout(LONG_TERM, caller, "long-term madness", "总结疯狂")
