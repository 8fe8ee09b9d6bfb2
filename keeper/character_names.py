"""Characters and their names in a room (docs/rules.md, "Characters and their names").

Every sheet of a room holds its name: a member's active character, one they set aside
by making another, and each pregenerated character, claimed or not. Two names are one
when `base.names.same_name_key` says so (case, full-width letters, invisible characters
and extra spaces aside), so two characters of one name never stand in one party, and
the Keeper's tools and `.inv give`, which find a character by name, never pick the
wrong one.

Making a character under a name a sheet holds is refused (`NameTaken`), with the way
forward: another name, or, when the sheet is the member's own, the word `replace`,
which deletes that sheet (kept for `.st undo`). Another member's sheet and a pregen
never give way from the table, whoever asks, keepers included: the operator's console
is where a sheet is taken from its owner.
"""

from __future__ import annotations

from collections.abc import Callable

from base.i18n import _, say
from base.names import same_name_key, shown_name
from keeper.models import Character

NAME_MAX = 64
# The trailing word that lets one's own sheet give way (`.coc Doc Hale replace`).
REPLACE_WORDS = ("replace", "替换")


class NameTaken(Exception):
    """A sheet of the room already holds the name: the member's own (`own`, which
    `replace` lets give way), another member's (`other`) or a pregen (`pregen`)."""

    def __init__(self, name: str, holder: str) -> None:
        super().__init__(f"{name} is taken ({holder})")
        self.name, self.holder = name, holder


def chosen_name(typed: str, fallback: str) -> str:
    """The name a character is made under: what was typed as the table shows it (at
    most `NAME_MAX` characters), or `fallback` when nothing visible was typed."""
    return shown_name(typed)[:NAME_MAX] or shown_name(fallback)[:NAME_MAX]


def without_replace(text: str) -> tuple[str, bool]:
    """`text` without a trailing `replace` word, and whether it had one."""
    head, _space, last = text.strip().rpartition(" ")
    if last.casefold() in REPLACE_WORDS:
        return head.strip(), True
    return text.strip(), False


def holders(room_id: int, name: str, *, besides: int | None = None) -> list[Character]:
    """The room's sheets that hold `name` (the one with id `besides` aside). A room
    holds a handful of sheets, so they are compared here rather than by a stored key."""
    key = same_name_key(name)
    sheets = Character.objects.filter(room_id=room_id).exclude(pk=besides)
    return [sheet for sheet in sheets if same_name_key(sheet.name) == key]


def in_the_way(
    room_id: int, member_id: str, name: str, *, replace: bool, besides: int | None = None
) -> list[Character]:
    """The member's own sheets that must give way for a character called `name` (none
    when the name is free). Raises `NameTaken` when another's sheet or a pregen holds
    it, or the member's own does and `replace` was not said."""
    held = holders(room_id, name, besides=besides)
    for sheet in held:
        if sheet.pregen:
            raise NameTaken(sheet.name, "pregen" if not sheet.owner else "other")
        if sheet.owner != member_id:
            raise NameTaken(sheet.name, "other")
    if held and not replace:
        raise NameTaken(held[0].name, "own")
    return held


def free_name(room_id: int, name: str) -> str:
    """`name`, or the first of "name 2", "name 3" ... that no sheet of the room holds:
    for a character made without anyone to ask (the sample adventure's investigator)."""
    candidate, number = name, 1
    while holders(room_id, candidate):
        number += 1
        suffix = f" {number}"
        candidate = name[: NAME_MAX - len(suffix)] + suffix
    return candidate


def refusal(taken: NameTaken, locale: str, retry: Callable[[str], str], *, may_replace: bool = True) -> str:
    """What a member is told when `taken` refused their character's name, with the way
    forward: `retry(name)` is the command they typed with another name in it."""
    another = retry(say(locale, _("<another name>")))
    if taken.holder == "own" and may_replace:
        return say(
            locale,
            _(
                "You already have a character called {name}. Choose another name ({another}), "
                "or put the new one in its place ({replace}): .st undo brings the old one back "
                "within 5 minutes."
            ),
            name=taken.name,
            another=another,
            replace=retry(f"{taken.name} replace"),
        )
    if taken.holder == "pregen":
        return say(
            locale,
            _(
                "{name} is one of this table's pregenerated characters: .pc claim {name} plays it. "
                "Or choose another name ({another})."
            ),
            name=taken.name,
            another=another,
        )
    return say(
        locale,
        _("{name} is already a character at this table. Choose another name ({another})."),
        name=taken.name,
        another=another,
    )


def gave_way(locale: str, name: str) -> str:
    """What the table is told when the member's own sheet `name` gave way to `replace`."""
    return say(locale, _("The old {name} gave way: .st undo brings it back within 5 minutes."), name=name)
