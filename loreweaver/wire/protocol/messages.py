"""Localized texts of the wire: error messages and server notices, in en and zh.

Clients branch on codes only; the texts tell a person what happened and what to do.
"""

from __future__ import annotations

from django.conf import settings

ERRORS: dict[str, dict[str, str]] = {
    "bad_key": {
        "en": "That access key is not valid on this server. Ask your keeper for a new one.",
        "zh": "此访问密钥在本服务器上无效。请向守秘人索取新的密钥。",
    },
    "key_revoked": {
        "en": "Your access key was revoked or moved to another room. Ask your keeper for a new one.",
        "zh": "你的访问密钥已被撤销或移至其他房间。请向守秘人索取新的密钥。",
    },
    "bad_frame": {
        "en": "The server could not understand that message ({detail}).",
        "zh": "服务器无法理解这条消息（{detail}）。",
    },
    "join_before_anything": {
        "en": "The first message must be a join with your access key.",
        "zh": "第一条消息必须是带有访问密钥的 join。",
    },
    "input_too_long": {
        "en": "That message is too long: the limit is {limit} characters. Shorten it and send again.",
        "zh": "消息过长：上限为 {limit} 个字符。请缩短后重新发送。",
    },
    "rate_limited": {
        "en": "You are sending too fast. Wait a moment and try again.",
        "zh": "发送过于频繁。请稍等片刻再试。",
    },
    "server_error": {
        "en": "The server hit an internal error; nothing was changed. Try again, or tell the operator.",
        "zh": "服务器发生内部错误，未做任何更改。请重试，或告知服务器管理员。",
    },
    "not_yet": {
        "en": "This server does not handle {what} yet.",
        "zh": "本服务器暂不支持 {what}。",
    },
    "join_timeout": {
        "en": "No join arrived within {seconds} seconds; reconnect and send your key.",
        "zh": "{seconds} 秒内未收到 join；请重新连接并发送密钥。",
    },
    "too_many_connections": {
        "en": "The server is full right now. Try again in a little while.",
        "zh": "服务器当前连接已满。请稍后再试。",
    },
    "forbidden": {
        "en": "Only the keeper can do that.",
        "zh": "只有守秘人可以这样做。",
    },
    "panel_forbidden": {
        "en": "That panel is not available to you.",
        "zh": "你无法使用该面板。",
    },
    "avatar_forbidden": {
        "en": "You can only set the portrait of your own character.",
        "zh": "你只能设置自己角色的头像。",
    },
    "avatar_no_character": {
        "en": "You have no active character to put a portrait on. Create or claim one first.",
        "zh": "你没有可设置头像的当前角色。请先创建或认领角色。",
    },
    "demo_unavailable": {
        "en": "The sample adventure can only start in a completely empty room, by its keeper, while "
        "no model is connected. Nothing was changed.",
        "zh": "示例冒险只能由守秘人在完全空白的房间、且未接入模型时启动。未做任何更改。",
    },
    "media_not_found": {
        "en": "That file is not in this room.",
        "zh": "此房间中没有该文件。",
    },
    "media_disabled": {
        "en": "Uploads are switched off in this room; ask the keeper to turn them on.",
        "zh": "本房间已关闭上传；请让守秘人开启。",
    },
    "media_rate_limited": {
        "en": "Too many uploads in a minute; wait a little and try again.",
        "zh": "一分钟内上传过多；请稍等再试。",
    },
    "media_bad_mime": {
        "en": "That file type cannot be shared: images PNG, JPEG, WebP, GIF, SVG; audio MP3, OGG, "
        "WAV, FLAC, M4A, AAC.",
        "zh": "不支持该文件类型：请使用 PNG、JPEG、WebP、GIF、SVG，或 MP3、OGG、WAV、FLAC、M4A、AAC。",
    },
    "media_too_large": {
        "en": "That file is empty or too large (images up to 8 MiB, audio up to 128 MiB by default).",
        "zh": "文件为空或过大（默认图片不超过 8 MiB，音频不超过 128 MiB）。",
    },
    "media_bad_hash": {
        "en": "The offer's sha256 must be 64 lower-case hex digits.",
        "zh": "sha256 必须是 64 位小写十六进制。",
    },
    "media_bad_offer": {
        "en": "That upload offer is malformed: it needs name, mime, size and sha256.",
        "zh": "上传请求格式错误：需要 name、mime、size 和 sha256。",
    },
    "media_quota_exceeded": {
        "en": "This room's storage for that kind of file is full; the keeper can remove old files.",
        "zh": "本房间此类文件的存储空间已满；守秘人可以删除旧文件。",
    },
    "media_bad_svg": {
        "en": "That SVG was refused: only plain drawings (shapes and text; no scripts, links or styles) "
        "are allowed.",
        "zh": "该 SVG 被拒绝：只允许简单图形（形状与文字，不含脚本、链接或样式）。",
    },
    "media_hash_mismatch": {
        "en": "The file's bytes do not match the sha256 offered; nothing was stored. Send it again.",
        "zh": "文件内容与申报的 sha256 不符，未保存。请重新发送。",
    },
    "media_size_mismatch": {
        "en": "The file's size does not match the size offered; nothing was stored. Send it again.",
        "zh": "文件大小与申报不符，未保存。请重新发送。",
    },
    "media_bad_upload": {
        "en": "That upload id is unknown, expired or not yours; offer the file again.",
        "zh": "该上传 id 无效、已过期或不属于你；请重新提交上传请求。",
    },
}

NOTICES: dict[str, dict[str, str]] = {
    "keeper_failed": {
        "en": "The Keeper could not answer this time; your line is recorded. Go on, or try again.",
        "zh": "守秘人这次未能回应；你的发言已记录。请继续，或再试一次。",
    },
    "turn_cut_off": {
        "en": "The Keeper's answer to {actor} was cut off when a server process stopped; the line is kept.",
        "zh": "服务器进程停止，守秘人对 {actor} 的回应被中断；发言已保留。",
    },
    "disconnected": {
        "en": "The server's operator disconnected this session.",
        "zh": "服务器管理员断开了此会话。",
    },
    "queued": {
        "en": "Another turn is running; yours is queued and will follow.",
        "zh": "另一回合正在进行；你的行动已排队，稍后执行。",
    },
}


def _pick(table: dict[str, dict[str, str]], key: str, locale: str | None, values: dict) -> str:
    texts = table[key]
    text = texts.get(locale or settings.TRPG_LOCALE) or texts["en"]
    return text.format(**values) if values else text


def error_message(key: str, locale: str | None = None, **values: object) -> str:
    """The localized message for an error code (or a more specific message key)."""
    return _pick(ERRORS, key, locale, values)


def notice(key: str, locale: str | None = None, **values: object) -> str:
    """The localized text of a server notice."""
    return _pick(NOTICES, key, locale, values)
