"""What the party pursues: a room's quests (`Quest`), for the commands, the Keeper's
tools and the console alike.

A quest's status is in the SideQuest client's words (`in_progress`, `completed`,
`failed`); a secret quest is the keepers' alone, and never reaches a player's frame
(`for_viewer`).
"""

from __future__ import annotations

from base.i18n import Refusal, _
from keeper.models import Quest

STATUSES = tuple(Quest.Status.values)
# Words people type for a status, in both languages.
STATUS_WORDS = {
    **{status: status for status in STATUSES},
    "open": "in_progress",
    "active": "in_progress",
    "progress": "in_progress",
    "done": "completed",
    "complete": "completed",
    "fail": "failed",
    "进行中": "in_progress",
    "进行": "in_progress",
    "完成": "completed",
    "已完成": "completed",
    "失败": "failed",
}
LABELS = {
    "in_progress": _("in progress"),
    "completed": _("completed"),
    "failed": _("failed"),
}


class QuestError(Refusal):
    """A quest change that cannot be made as asked; `message(locale)` says why."""


def find(room_id: int, name: str) -> Quest | None:
    """The room's quest called `name` (any case), else the one whose name starts with it."""
    wanted = " ".join(name.split())
    if not wanted:
        return None
    found = Quest.objects.filter(room_id=room_id, name__iexact=wanted).first()
    if found is not None:
        return found
    begins = list(Quest.objects.filter(room_id=room_id, name__istartswith=wanted)[:2])
    return begins[0] if len(begins) == 1 else None


def _named(room_id: int, name: str) -> Quest:
    quest = find(room_id, name)
    if quest is None:
        raise QuestError(_("There is no quest called {name}."), name=name.strip())
    return quest


def status_of(word: str) -> str:
    """The status a typed word names; refused when it names none."""
    status = STATUS_WORDS.get(word.strip().lower())
    if status is None:
        raise QuestError(_("A quest is in_progress, completed or failed."))
    return status


def open_quest(room_id: int, name: str, description: str = "", *, secret: bool = False) -> tuple[Quest, bool]:
    """Open a quest (in progress), or open again and describe anew one of that name.
    Returns the quest and whether it is new."""
    name = " ".join(name.split())[:100]
    if not name:
        raise QuestError(_("Name the quest."))
    quest = Quest.objects.filter(room_id=room_id, name__iexact=name).first()
    created = quest is None
    if quest is None:
        quest = Quest(room_id=room_id, name=name, secret=secret)
    quest.status = Quest.Status.IN_PROGRESS
    if description.strip() or created:
        quest.description = description.strip()[:300]
    quest.save()
    return quest, created


def set_status(room_id: int, name: str, status: str) -> tuple[Quest, str]:
    """Set a quest's status (a word `status_of` reads). Returns it and the status before."""
    quest = _named(room_id, name)
    before, quest.status = quest.status, status_of(status)
    quest.save(update_fields=["status"])
    return quest, before


def set_secret(room_id: int, name: str, secret: bool) -> Quest:
    """Make a quest keeper-only, or known to the players again."""
    quest = _named(room_id, name)
    quest.secret = secret
    quest.save(update_fields=["secret"])
    return quest


def entries(room_id: int) -> list[dict]:
    """Every quest of the room as plain data, in the order they were opened (what a
    refresh carries: `for_viewer` keeps each viewer's share)."""
    return [
        {"name": q.name, "status": q.status, "description": q.description, "secret": q.secret}
        for q in Quest.objects.filter(room_id=room_id).order_by("id")
    ]


def for_viewer(quests: list[dict], *, is_keeper: bool) -> list[dict]:
    """A viewer's share of the room's quests: a player's never has a secret one; a
    keeper's marks them `secret: true`."""
    shown = []
    for quest in quests:
        if quest["secret"] and not is_keeper:
            continue
        entry = {key: quest[key] for key in ("name", "status", "description")}
        if quest["secret"]:
            entry["secret"] = True
        shown.append(entry)
    return shown
