"""The keeper's table commands: `.reset [chars|all]` then `.reset confirm`, `.language`,
`.save [name]` and `.save load <name>` (full-room checkpoints in the backup format)."""

from __future__ import annotations

import datetime

from django.utils import timezone

from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.models import TableSettings
from rooms import backups
from rooms.models import Room

CONFIRM_WINDOW = datetime.timedelta(seconds=60)


@command(
    "reset",
    help_en="start over: .reset [chars|all], then .reset confirm",
    help_zh="重开：.reset [chars|all] 后 .reset confirm",
    keeper_only=True,
)
def reset(arguments: str, caller: Caller) -> CommandReply:
    settings = TableSettings.of(caller.room_id)
    word = arguments.strip().lower()
    if word == "confirm":
        fresh = settings.pending_reset_at and timezone.now() - settings.pending_reset_at <= CONFIRM_WINDOW
        if not settings.pending_reset or not fresh:
            return CommandReply(
                caller.say("Nothing to confirm: type .reset first.", "没有待确认的重开：请先输入 .reset。")
            )
        scope = settings.pending_reset
        settings.pending_reset, settings.pending_reset_at = "", None
        settings.save(update_fields=["pending_reset", "pending_reset_at"])
        backups.room_reset(Room.objects.get(pk=caller.room_id), scope)
        return CommandReply(
            caller.say("The campaign starts over ({scope}).", "战役重新开始（{scope}）。", scope=scope),
            private=False,
        )
    scope = {"": "story", "chars": "chars", "all": "all"}.get(word)
    if scope is None:
        return CommandReply(
            caller.say("Use .reset, .reset chars or .reset all.", "用法：.reset / .reset chars / .reset all")
        )
    settings.pending_reset, settings.pending_reset_at = scope, timezone.now()
    settings.save(update_fields=["pending_reset", "pending_reset_at"])
    return CommandReply(
        caller.say(
            "This erases the {scope} of this room. Type .reset confirm within 60 seconds to go ahead.",
            "这将清除本房间的 {scope}。请在 60 秒内输入 .reset confirm 确认。",
            scope=scope,
        )
    )


@command(
    "language",
    help_en="room language: .language en|zh",
    help_zh="房间语言：.language en|zh",
    keeper_only=True,
)
def language(arguments: str, caller: Caller) -> CommandReply:
    choice = arguments.strip().lower()
    settings = TableSettings.of(caller.room_id)
    if not choice:
        return CommandReply(
            caller.say("Room language: {l}.", "房间语言：{l}。", l=settings.language or "server default")
        )
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if choice not in ("en", "zh"):
        return CommandReply(caller.say("Choose en or zh.", "请选择 en 或 zh。"))
    settings.language = choice
    settings.save(update_fields=["language"])
    return CommandReply(caller.say("Room language: {l}.", "房间语言：{l}。", l=choice), private=False)


@command(
    "save",
    help_en="checkpoint: .save [name], .save load <name>",
    help_zh="存档：.save [名字]，.save load <名字>",
    keeper_only=True,
)
def save(arguments: str, caller: Caller) -> CommandReply:
    word, _, name = arguments.strip().partition(" ")
    room = Room.objects.get(pk=caller.room_id)
    try:
        if word.lower() == "load":
            try:
                path = backups.backup_file(backups.backup_of(room.pk, name.strip()))
            except backups.BackupError as missing:
                if missing.code != "not_found":
                    raise
                return CommandReply(
                    caller.say("No checkpoint called {n}.", "没有名为 {n} 的存档。", n=name.strip())
                )
            backups.room_import(path, room.name)
            return CommandReply(
                caller.say("Checkpoint {n} is loaded.", "已读取存档 {n}。", n=path.name),
                private=False,
            )
        path = backups.new_backup_path(room, arguments.strip() or None)
        backups.room_export(room, path)
    except backups.BackupError as refused:
        return CommandReply(caller.say("Cannot do that: {why}", "无法执行：{why}", why=str(refused)))
    return CommandReply(caller.say("Saved as {n}.", "已存档为 {n}。", n=path.name))
