"""What characters carry: items and money, kept on the sheet (`Character.items`,
`Character.money`).

One set of functions for every writer: the dot commands (`inventory_commands`), the
Keeper's tools (`kp/item_tools.py`) and the console all change items through these, so a
typed `.inv use` and a tool's `use_item` cannot differ. Each change reads the row again
under a lock, so two writers never lose each other's item.

An item is `{name, kind, quantity, equipped, description}`; names match without regard
to case. A consumable used up stays on the sheet at quantity 0 (the empty flask) until it
is dropped or stocked again: that is how a client tells "used up" from "dropped".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from base.i18n import Refusal, _, say
from keeper.models import Character
from keeper.rules.packs import catalog

KINDS = ("weapon", "armor", "tool", "consumable", "quest", "misc")
# Words people type for a kind, in both languages.
KIND_WORDS = {
    **{kind: kind for kind in KINDS},
    "armour": "armor",
    "武器": "weapon",
    "护甲": "armor",
    "防具": "armor",
    "工具": "tool",
    "消耗品": "consumable",
    "任务": "quest",
    "quest item": "quest",
    "任务物品": "quest",
    "杂物": "misc",
}
# How each kind reads in a reply (`kind_label`).
KIND_LABELS = {
    "weapon": _("weapon"),
    "armor": _("armor"),
    "tool": _("tool"),
    "consumable": _("consumable"),
    "quest": _("quest item"),
    "misc": _("misc"),
}
MAX_ITEMS = 100
MAX_QUANTITY = 9999
MAX_MONEY = 10**9


class ItemError(Refusal):
    """An item change that cannot be made as asked; `message(locale)` says why."""


def clean_item(raw: dict) -> dict:
    """An item in its one shape, whatever wrote it (a console edit, an old backup)."""
    kind = KIND_WORDS.get(str(raw.get("kind") or raw.get("type") or "misc").lower(), "misc")
    try:
        quantity = max(0, min(MAX_QUANTITY, int(raw.get("quantity", 1))))
    except (TypeError, ValueError):
        quantity = 1
    return {
        "name": str(raw.get("name") or "").strip()[:64],
        "kind": kind,
        "quantity": quantity,
        "equipped": bool(raw.get("equipped")),
        "description": str(raw.get("description") or "").strip()[:300],
    }


def items_of(character: Character) -> list[dict]:
    """The character's items, each in its one shape, in the order they came."""
    return [clean_item(item) for item in character.items or [] if isinstance(item, dict) and item.get("name")]


def find(items: list[dict], name: str) -> dict | None:
    """The item called `name` (any case), else the one item whose name starts with it."""
    wanted = " ".join(name.split()).lower()
    if not wanted:
        return None
    exact = [item for item in items if item["name"].lower() == wanted]
    if exact:
        return exact[0]
    begins = [item for item in items if item["name"].lower().startswith(wanted)]
    return begins[0] if len(begins) == 1 else None


class Coins:
    """What a character's money is counted in, in either language (`pick`): a refusal
    that names an amount reads it with its unit in each reader's language."""

    def __init__(self, system: str) -> None:
        self.system = system

    def pick(self, locale: str) -> str:
        """The unit's word in `locale`: the rule pack's, else a plain word for money."""
        pack = catalog().packs.get(self.system)
        if pack is None or pack.currency is None:
            return say(locale, _("coins"))
        return pack.currency.pick(locale)


def currency(character: Character, locale: str) -> str:
    """What the character's money is counted in, by its rule pack."""
    return Coins(character.system).pick(locale)


def _change(character: Character, edit: Callable[[list[dict], Character], Any]) -> Any:
    """Run `edit` on the character's items read afresh under a lock, save, and keep the
    caller's copy in step."""
    with transaction.atomic():
        row = Character.objects.select_for_update().get(pk=character.pk)
        items = items_of(row)
        result = edit(items, row)
        row.items = items
        row.save(update_fields=["items", "money"])
    character.items, character.money = row.items, row.money
    return result


def _named(items: list[dict], name: str, owner: Character) -> dict:
    item = find(items, name)
    if item is None:
        raise ItemError(_("{who} carries no {item}."), who=owner.name, item=name.strip())
    return item


def add(
    character: Character,
    name: str,
    *,
    quantity: int = 1,
    kind: str = "",
    description: str = "",
    equipped: bool = False,
) -> dict:
    """Give the character `quantity` of an item: more of one they carry, else a new one.
    Returns the item as it is now."""
    name = " ".join(name.split())[:64]
    if not name:
        raise ItemError(_("Name the item."))
    if not 1 <= quantity <= MAX_QUANTITY:
        raise ItemError(_("A quantity is a whole number from 1 to {most}."), most=MAX_QUANTITY)

    def edit(items: list[dict], row: Character) -> dict:
        item = next((i for i in items if i["name"].lower() == name.lower()), None)
        if item is None:
            if len(items) >= MAX_ITEMS:
                raise ItemError(_("{who} cannot carry more than {most} items."), who=row.name, most=MAX_ITEMS)
            item = clean_item({"name": name, "kind": kind, "quantity": 0, "equipped": equipped})
            items.append(item)
        item["quantity"] = min(MAX_QUANTITY, item["quantity"] + quantity)
        if kind:
            item["kind"] = KIND_WORDS.get(kind.lower(), "misc")
        if description:
            item["description"] = description.strip()[:300]
        return dict(item)

    return _change(character, edit)


def use(character: Character, name: str) -> tuple[dict, int]:
    """Use an item: a consumable goes down by one (refused at 0). Returns the item as it
    is now and its quantity before."""

    def edit(items: list[dict], row: Character) -> tuple[dict, int]:
        item = _named(items, name, row)
        before = item["quantity"]
        if item["kind"] == "consumable":
            if before <= 0:
                raise ItemError(_("{who} has no {item} left."), who=row.name, item=item["name"])
            item["quantity"] = before - 1
        return dict(item), before

    return _change(character, edit)


def drop(character: Character, name: str) -> dict:
    """Take the item off the character altogether. Returns it as it was."""

    def edit(items: list[dict], row: Character) -> dict:
        item = _named(items, name, row)
        items.remove(item)
        return item

    return _change(character, edit)


def take(character: Character, name: str, quantity: int = 1) -> tuple[dict, int]:
    """Take `quantity` of an item away (all of it at most); an item that comes to none is
    gone. Returns the item as it was and how many were taken."""

    def edit(items: list[dict], row: Character) -> tuple[dict, int]:
        item = _named(items, name, row)
        taken = min(max(1, quantity), item["quantity"]) if item["quantity"] else 0
        was = dict(item)
        item["quantity"] -= taken
        if item["quantity"] <= 0:
            items.remove(item)
        return was, taken

    return _change(character, edit)


def equip(character: Character, name: str, equipped: bool = True) -> dict:
    """Equip (or put away) an item. Returns it as it is now."""

    def edit(items: list[dict], row: Character) -> dict:
        item = _named(items, name, row)
        item["equipped"] = equipped
        return dict(item)

    return _change(character, edit)


def give(giver: Character, receiver: Character, name: str, quantity: int = 1) -> dict:
    """Hand `quantity` of an item (all of it at most) from one character to another, in
    one transaction. Returns the item as the receiver now has it."""
    if giver.pk == receiver.pk:
        raise ItemError(_("{who} already has it."), who=giver.name)
    with transaction.atomic():
        # Both rows locked in one order first: two gifts crossing each other (A to B while
        # B gives to A) would otherwise each hold one row and wait for the other.
        list(Character.objects.select_for_update().filter(pk__in=[giver.pk, receiver.pk]).order_by("pk"))
        was, taken = take(giver, name, quantity)
        if not taken:
            raise ItemError(_("{who} has no {item} left."), who=giver.name, item=was["name"])
        return add(receiver, was["name"], quantity=taken, kind=was["kind"], description=was["description"])


def add_money(character: Character, delta: int) -> tuple[int, int]:
    """Add (or, negative, spend) money; a character never goes below none. Returns
    (before, after)."""

    def edit(_items: list[dict], row: Character) -> tuple[int, int]:
        before = row.money
        after = before + delta
        if after < 0:
            raise ItemError(
                _("{who} has only {money} {currency}."),
                who=row.name,
                money=before,
                currency=Coins(row.system),
            )
        row.money = min(after, MAX_MONEY)
        return before, row.money

    return _change(character, edit)


def sheet_block(character: Character, locale: str) -> dict[str, Any]:
    """What `state.character` shows of the character's belongings (docs/decisions.md,
    "Items, money and quests")."""
    return {"items": items_of(character), "money": character.money, "currency": currency(character, locale)}


def kind_label(kind: str, locale: str) -> str:
    """An item's kind as a reader in `locale` reads it ("weapon", "武器")."""
    return say(locale, KIND_LABELS.get(kind, KIND_LABELS["misc"]))


def quantity_text(item: dict) -> str:
    """An item as a line reads it: "Lantern", "Brandy x3"."""
    return item["name"] if item["quantity"] == 1 else f"{item['name']} x{item['quantity']}"


def character_named(room_id: int, name: str) -> Character | None:
    """An active character of the room by name (any case)."""
    name = " ".join(name.split())
    if not name:
        return None
    return Character.objects.filter(room_id=room_id, active=True, name__iexact=name).first()
