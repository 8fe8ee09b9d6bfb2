"""The pregenerated cast: `.pc list`, `.pc claim <name>`, `.pc release [name]`."""

from __future__ import annotations

from django.db import transaction

from keeper.commands import Caller, CommandReply, command
from keeper.models import Character


@command(
    "pc",
    help_en="pregens: .pc list, .pc claim <name>, .pc release",
    help_zh="预设角色：.pc list / claim / release",
)
def pregens(arguments: str, caller: Caller) -> CommandReply:
    word, _, name = arguments.strip().partition(" ")
    word, name = word.lower(), name.strip()
    roster = Character.objects.filter(room_id=caller.room_id, pregen=True)
    if word in ("", "list"):
        if not roster.exists():
            return CommandReply(
                caller.say("This table has no pregenerated characters.", "本桌没有预设角色。")
            )
        lines = [
            f"{c.name}: " + (caller.say("free", "空闲") if not c.owner else caller.say("claimed", "已认领"))
            for c in roster
        ]
        return CommandReply("\n".join(lines))
    if word == "claim":
        with transaction.atomic():
            chosen = roster.select_for_update().filter(name=name).first()
            if chosen is None:
                return CommandReply(caller.say("No pregen called {n}.", "没有名为 {n} 的预设角色。", n=name))
            if chosen.owner and chosen.owner != caller.member_id:
                return CommandReply(caller.say("{n} is already claimed.", "{n} 已被认领。", n=name))
            Character.objects.filter(room_id=caller.room_id, owner=caller.member_id, active=True).update(
                active=False
            )
            chosen.owner, chosen.active = caller.member_id, True
            chosen.save(update_fields=["owner", "active"])
        return CommandReply(
            caller.say("{who} plays {n}.", "{who} 认领了 {n}。", who=caller.name, n=name), private=False
        )
    if word == "release":
        mine = roster.filter(owner=caller.member_id) if not name else roster.filter(name=name)
        chosen = mine.first()
        if chosen is None:
            return CommandReply(caller.say("Nothing to release.", "没有可释放的角色。"))
        if chosen.owner != caller.member_id and not caller.is_keeper:
            return CommandReply(
                caller.say(
                    "Only the keeper can release another's character.", "只有守秘人可以释放他人的角色。"
                )
            )
        chosen.owner, chosen.active = "", False
        chosen.save(update_fields=["owner", "active"])
        return CommandReply(caller.say("{n} is free again.", "{n} 已被释放。", n=chosen.name), private=False)
    return CommandReply(
        caller.say(
            "Use .pc list, .pc claim <name> or .pc release.",
            "用法：.pc list / .pc claim <名字> / .pc release",
        )
    )
