"""Initiative: `.ri`, `.ri list`, `.ri next`, `.ri clear` (RULES.md)."""

from __future__ import annotations

from django.db import transaction

from keeper import characters
from keeper.commands import Caller, CommandReply, DiceEvent, command, keeper_refusal
from keeper.dice import roll_expression
from keeper.models import InitiativeEntry, TableSettings
from keeper.rules.packs import catalog
from loreweaver import frames


def order(room_id: int) -> list[InitiativeEntry]:
    """The room's initiative order, highest first (ties broken by the pack's tiebreak)."""
    return list(InitiativeEntry.objects.filter(room_id=room_id))


def _listing(caller: Caller) -> str:
    entries = order(caller.room_id)
    if not entries:
        return caller.say("No initiative rolled yet.", "尚未投掷先攻。")
    return "\n".join(f"{'▶ ' if e.current else '  '}{e.name} {e.value}" for e in entries)


@command(
    "ri",
    "init",
    help_en="initiative: .ri, .ri list, .ri next / .ri clear (keeper)",
    help_zh="先攻：.ri .ri list",
)
def initiative(arguments: str, caller: Caller) -> CommandReply:
    word = arguments.strip().lower()
    if word == "list":
        return CommandReply(_listing(caller))
    if word in ("next", "clear"):
        if not caller.is_keeper:
            return keeper_refusal(caller)
        with transaction.atomic():
            entries = list(InitiativeEntry.objects.select_for_update().filter(room_id=caller.room_id))
            if word == "clear":
                InitiativeEntry.objects.filter(room_id=caller.room_id).delete()
                return CommandReply(caller.say("Initiative cleared.", "先攻已清空。"), private=False)
            if not entries:
                return CommandReply(caller.say("No initiative rolled yet.", "尚未投掷先攻。"))
            index = next((i for i, e in enumerate(entries) if e.current), -1)
            following = entries[(index + 1) % len(entries)]
            InitiativeEntry.objects.filter(room_id=caller.room_id).update(current=False)
            InitiativeEntry.objects.filter(pk=following.pk).update(current=True)
        return CommandReply(
            caller.say("{name} acts now.", "轮到 {name} 行动。", name=following.name), private=False
        )
    character = characters.active_character(caller.room_id, caller.member_id)
    system = character.system if character else TableSettings.of(caller.room_id).system
    pack = catalog().packs[system]
    rule = pack.initiative
    expression = rule.roll if rule else pack.default_die
    add = 0
    tiebreak = 0
    if character and rule:
        if rule.add == "DEX_mod":
            add = (int(character.attributes.get("DEX", 10)) - 10) // 2
        if rule.tiebreak:
            tiebreak = int(character.attributes.get(rule.tiebreak, 0))
    result = roll_expression(expression)[0]
    value = result.total + add
    name = character.name if character else caller.name
    InitiativeEntry.objects.update_or_create(
        room_id=caller.room_id, name=name, defaults={"value": value, "tiebreak": tiebreak}
    )
    frame = frames.dice(
        name, "init", expression + (f"{add:+d}" if add else ""), result.rolls, value, detail={"modifier": add}
    )
    return CommandReply(
        caller.say("{name} rolls initiative: {value}", "{name} 的先攻：{value}", name=name, value=value),
        private=False,
        events=[DiceEvent(frame)],
    )
