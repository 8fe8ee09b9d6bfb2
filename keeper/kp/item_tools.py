"""The Keeper's tools for what characters carry and what the party pursues: give, take
and use an item, change money, open or settle a quest.

Each passes the model's arguments to the same functions the commands call
(`keeper.inventory`, `keeper.quests`), so a tool's `use_item` and a typed `.inv use`
cannot differ. A change the players may know of is a line of the story, in the room's
language (a `narrative` of the system, its id given by the turn loop); a secret quest's
is told to the keepers only.
"""

from __future__ import annotations

from base import frames
from base.i18n import Refusal, _, say
from keeper import inventory, quests
from keeper.kp.tool_kinds import INT, TEXT, Tool, ToolContext, ToolOutcome, schema
from keeper.models import Character

_CHARACTER = {"type": "string", "description": "the character's name"}
_ITEM = {"type": "string", "description": "the item's short name, such as lantern"}


def _line(text: str) -> list[tuple[dict, bool]]:
    """A line of the story everyone reads (its id comes from the turn loop)."""
    return [(frames.narrative("", "system", text), False)]


def _character(context: ToolContext, arguments: dict) -> Character | None:
    name = " ".join(str(arguments.get("character") or "").split())
    if not name:
        return None
    found = inventory.character_named(context.room_id, name)
    return found or Character.objects.filter(room_id=context.room_id, name__iexact=name).first()


def _quantity(arguments: dict) -> int:
    quantity = arguments.get("quantity")
    return quantity if isinstance(quantity, int) and not isinstance(quantity, bool) and quantity > 0 else 1


def _give_item(arguments: dict, context: ToolContext) -> ToolOutcome:
    character = _character(context, arguments)
    if character is None:
        return ToolOutcome(f"no character called {arguments.get('character')!r}")
    count = _quantity(arguments)
    try:
        item = inventory.add(
            character,
            str(arguments.get("item") or ""),
            quantity=count,
            kind=str(arguments.get("kind") or ""),
            description=str(arguments.get("description") or ""),
        )
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    shown = f"{item['name']} x{count}" if count != 1 else item["name"]
    text = say(context.locale, _("{who} takes the {item}."), who=character.name, item=shown)
    return ToolOutcome(f"{character.name} now has {inventory.quantity_text(item)}", _line(text))


def _take_item(arguments: dict, context: ToolContext) -> ToolOutcome:
    character = _character(context, arguments)
    if character is None:
        return ToolOutcome(f"no character called {arguments.get('character')!r}")
    try:
        item, taken = inventory.take(character, str(arguments.get("item") or ""), _quantity(arguments))
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    text = say(context.locale, _("{who} loses the {item}."), who=character.name, item=item["name"])
    return ToolOutcome(f"{character.name} lost {taken} of {item['name']}", _line(text))


def _use_item(arguments: dict, context: ToolContext) -> ToolOutcome:
    character = _character(context, arguments)
    if character is None:
        return ToolOutcome(f"no character called {arguments.get('character')!r}")
    try:
        item, before = inventory.use(character, str(arguments.get("item") or ""))
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    text = say(context.locale, _("{who} uses the {item}."), who=character.name, item=item["name"])
    left = f" ({before} -> {item['quantity']} left)" if item["kind"] == "consumable" else ""
    return ToolOutcome(f"{character.name} used {item['name']}{left}", _line(text))


def _change_money(arguments: dict, context: ToolContext) -> ToolOutcome:
    character = _character(context, arguments)
    change = arguments.get("change")
    if character is None:
        return ToolOutcome(f"no character called {arguments.get('character')!r}")
    if not isinstance(change, int) or isinstance(change, bool) or not change:
        return ToolOutcome("give `change`, a whole number (negative to spend)")
    try:
        before, after = inventory.add_money(character, change)
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    coins = inventory.currency(character, context.locale)
    text = say(
        context.locale,
        _("{who}'s money: {before} → {after} {currency}."),
        who=character.name,
        before=before,
        after=after,
        currency=coins,
    )
    return ToolOutcome(f"{character.name} has {after} {inventory.currency(character, 'en')}", _line(text))


def _set_quest(arguments: dict, context: ToolContext) -> ToolOutcome:
    name = str(arguments.get("name") or "")
    status = str(arguments.get("status") or "in_progress")
    secret = arguments.get("secret") is True
    try:
        if quests.status_of(status) == "in_progress":
            quest, _new = quests.open_quest(
                context.room_id, name, str(arguments.get("description") or ""), secret=secret
            )
            text = say(context.locale, _("A new quest: {name}."), name=quest.name)
        else:
            quest, _before = quests.set_status(context.room_id, name, status)
            label = say(context.locale, quests.LABELS[quest.status])
            text = say(context.locale, _("Quest {name}: {status}."), name=quest.name, status=label)
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    result = f"quest {quest.name!r}: {quest.status}" + (" (keeper-only)" if quest.secret else "")
    if quest.secret:
        return ToolOutcome(result, keeper_notice=text)
    return ToolOutcome(result, _line(text))


TOOLS = (
    Tool(
        "give_item",
        "bookkeeping",
        "Give a character an item they now carry (found, handed over, bought). `kind`: weapon, armor, "
        "tool, consumable, quest or misc. The table is told.",
        schema(
            ["character", "item"],
            character=_CHARACTER,
            item=_ITEM,
            quantity=INT,
            kind={"type": "string", "enum": list(inventory.KINDS)},
            description=TEXT,
        ),
        _give_item,
    ),
    Tool(
        "take_item",
        "bookkeeping",
        "Take an item away from a character (lost, stolen, handed over). The table is told.",
        schema(["character", "item"], character=_CHARACTER, item=_ITEM, quantity=INT),
        _take_item,
    ),
    Tool(
        "use_item",
        "bookkeeping",
        "A character uses an item they carry; a consumable goes down by one. The table is told.",
        schema(["character", "item"], character=_CHARACTER, item=_ITEM),
        _use_item,
    ),
    Tool(
        "change_money",
        "bookkeeping",
        "Change a character's money by `change` (negative to spend). The table is told.",
        schema(["character", "change"], character=_CHARACTER, change=INT),
        _change_money,
    ),
    Tool(
        "set_quest",
        "bookkeeping",
        "Open a quest the party pursues (status in_progress, with a one-line description), or settle "
        "it (completed, failed). `secret`: only the keepers know of it.",
        schema(
            ["name"],
            name=TEXT,
            status={"type": "string", "enum": list(quests.STATUSES)},
            description=TEXT,
            secret={"type": "boolean"},
        ),
        _set_quest,
    ),
)
