"""Names people type, as the table shows and compares them: a guest's name
(rooms/guests.py) and a character's (keeper/character_names.py) are one name whatever
case, width, invisible characters or spaces it was typed with."""

from __future__ import annotations

import unicodedata

__all__ = ["same_name_key", "shown_name"]

# Characters Unicode calls default-ignorable, or that draw nothing, beyond the format
# and control categories: fillers, variation selectors, the combining grapheme joiner.
_DRAWS_NOTHING = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}


def _invisible(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn")
        or code in _DRAWS_NOTHING
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0100 <= code <= 0xE01EF
        or 0x180B <= code <= 0x180F
    )


def shown_name(typed: str) -> str:
    """A typed name as the table shows it: invisible characters removed, every kind of
    space one plain space, trimmed."""
    visible = "".join(" " if char.isspace() else char for char in str(typed) if not _invisible(char))
    return " ".join(unicodedata.normalize("NFC", visible).split())


def same_name_key(name: str) -> str:
    """What two names are compared by: their shown form, compatibility-normalised
    (full-width letters, ligatures) and case-folded."""
    return unicodedata.normalize("NFKC", shown_name(name)).casefold()
