"""The command router: which inputs are dot commands, and what they answer.

The game-core issue fills the registry (`.r`, `.st`, ...). Until then every command
is unknown and answered privately, never sent to the Keeper (it is usually a typo).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

PREFIXES = (".", "。", "/")
# A command is a prefix followed at once by a word; "... I wait" is ordinary play.
_COMMAND = re.compile(r"^[.。/](?P<word>[^\W\d_][\w]*)", re.UNICODE)

# name -> handler; filled by the game-core issue.
REGISTRY: dict[str, object] = {}

UNKNOWN = {
    "en": "Unknown command .{word}.",
    "zh": "未知指令 .{word}。",
}
SUGGEST = {
    "en": " Did you mean: {names}?",
    "zh": " 你是不是想输入：{names}？",
}
NO_COMMANDS = {
    "en": " This table has no dot commands yet; type your action as plain text.",
    "zh": " 本桌暂无点号指令；请直接用文字描述你的行动。",
}


@dataclass(frozen=True)
class CommandReply:
    """What a command answers: a text, and whether only the caller sees it."""

    text: str
    private: bool = True


def command_word(text: str) -> str | None:
    """The command word if `text` is a dot command line, else None."""
    match = _COMMAND.match(text.strip())
    return match.group("word").lower() if match else None


def dispatch(text: str, *, locale: str) -> CommandReply | None:
    """Answer a command line, or return None when `text` is ordinary play."""
    word = command_word(text)
    if word is None:
        return None
    lang = locale if locale in UNKNOWN else "en"
    reply = UNKNOWN[lang].format(word=word)
    close = difflib.get_close_matches(word, REGISTRY.keys(), n=3, cutoff=0.6)
    if close:
        reply += SUGGEST[lang].format(names=", ".join("." + name for name in close))
    elif not REGISTRY:
        reply += NO_COMMANDS[lang]
    return CommandReply(text=reply, private=True)
