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
}

NOTICES: dict[str, dict[str, str]] = {
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
