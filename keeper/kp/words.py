"""How the offline Keepers read a player's line: which words it mentions and which NPC
it names (English words whole and in any case, Chinese ones anywhere)."""

from __future__ import annotations

import re


def mentions(line: str, words: list[str]) -> bool:
    """Whether the line holds one of the words (English ones whole, in any case)."""
    for word in words:
        if word.isascii():
            if re.search(rf"\b{re.escape(word)}\b", line, re.IGNORECASE):
                return True
        elif word in line:
            return True
    return False


def names_npc(line: str, name: str) -> bool:
    """Whether the line names the NPC (its full name, or its first name)."""
    words = [name, name.split()[0]] if name.split() else [name]
    return mentions(line, [w for w in words if len(w) > 1])
