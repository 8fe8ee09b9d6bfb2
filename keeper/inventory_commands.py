"""Items, money and quests at the table: `.inv`, `.money`, `.quest` (see
`keeper.inventory` and `keeper.quests`). A change is a line of the story everyone
reads ("Alice takes the lantern."); showing is answered privately."""

from __future__ import annotations

import re

from base.i18n import Refusal, _
from keeper import characters, inventory, quests
from keeper.commands import Caller, CommandReply, command, keeper_refusal, trailing_number
from keeper.models import Character

# The sub-commands' words in Chinese, as people type them (`.inv 使用 提灯`).
_WORDS = {
    "列表": "list",
    "查看": "show",
    "添加": "add",
    "获得": "add",
    "使用": "use",
    "丢弃": "drop",
    "装备": "equip",
    "卸下": "unequip",
    "给": "give",
    "交给": "give",
    "新增": "add",
    "设置": "set",
    "秘密": "secret",
    "公开": "reveal",
}


def _counted(text: str) -> tuple[str, int]:
    """An item's name and how many (1 when no count is given); a count outside 1 to
    `MAX_QUANTITY` is refused (`ItemError`)."""
    counted = _count_of(text.strip())
    if counted is None:
        return text.strip(), 1
    name, digits = counted
    digits = digits.lstrip("0") or "0"
    # More digits than the cap has is above it: no need to read a thousand of them.
    too_many = len(digits) > len(str(inventory.MAX_QUANTITY))
    count = inventory.MAX_QUANTITY + 1 if too_many else int(digits)
    if not 1 <= count <= inventory.MAX_QUANTITY:
        raise inventory.ItemError(
            _("A quantity is a whole number from 1 to {most}."), most=inventory.MAX_QUANTITY
        )
    return name, count


def _count_of(text: str) -> tuple[str, str] | None:
    """`Brandy x3`, `Brandy*3` (or the multiplication sign): the name (one line of it)
    and the count's digits, however many (a count past the cap is refused by the
    caller, never kept in the item's name), or None when `text` ends with no count."""
    numbered = trailing_number(text)
    head = numbered[0].rstrip() if numbered else ""
    if not head or head[-1] not in "xX×*":
        return None
    name = head[:-1].rstrip()
    if not name or "\n" in name:
        return None
    return name.strip(), numbered[1]


def _no_character(caller: Caller) -> CommandReply:
    return CommandReply(caller.say(_("You have no active character here: make one with .coc or .dnd.")))


def _show(character: Character, caller: Caller) -> CommandReply:
    items = inventory.items_of(character)
    money = caller.say(
        _("Money: {money} {currency}."),
        money=character.money,
        currency=inventory.currency(character, caller.locale),
    )
    if not items:
        return CommandReply(caller.say(_("{who} carries nothing."), who=character.name) + " " + money)
    lines = [caller.say(_("{who} carries:"), who=character.name)]
    for item in items:
        marks = caller.say(_(" (equipped)")) if item["equipped"] else ""
        if item["quantity"] == 0:
            marks += caller.say(_(" (used up)"))
        about = f" · {item['description']}" if item["description"] else ""
        kind = inventory.kind_label(item["kind"], caller.locale)
        lines.append(f"  {inventory.quantity_text(item)} [{kind}]{marks}{about}")
    lines.append(money)
    return CommandReply("\n".join(lines))


@command(
    "inv",
    "inventory",
    "背包",
    "物品",
    help=_(
        "items: .inv, .inv add <item> [xN] [| kind | description], .inv use <item>, .inv drop <item>, "
        ".inv give <item> to <name>, .inv equip <item>"
    ),
)
def inv(arguments: str, caller: Caller) -> CommandReply:
    """Show or change what the caller's active character carries."""
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = _WORDS.get(word, word.lower()), rest.strip()
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return _no_character(caller)
    try:
        if word in ("", "list", "show"):
            return _show(character, caller)
        if word == "add":
            return _add(character, rest, caller)
        if word == "use":
            item, before = inventory.use(character, rest)
            text = caller.say(_("{who} uses the {item}."), who=character.name, item=item["name"])
            if item["kind"] == "consumable":
                text += " " + caller.say(_("({before} → {after})"), before=before, after=item["quantity"])
            return CommandReply(text, private=False)
        if word == "drop":
            item = inventory.drop(character, rest)
            return CommandReply(
                caller.say(_("{who} drops the {item}."), who=character.name, item=item["name"]), private=False
            )
        if word == "equip":
            item = inventory.equip(character, rest)
            return CommandReply(
                caller.say(_("{who} equips the {item}."), who=character.name, item=item["name"]),
                private=False,
            )
        if word == "unequip":
            item = inventory.equip(character, rest, equipped=False)
            return CommandReply(
                caller.say(_("{who} puts away the {item}."), who=character.name, item=item["name"]),
                private=False,
            )
        if word == "give":
            return _give(character, rest, caller)
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _("Use .inv, .inv add <item> [xN], .inv use|drop|equip <item>, .inv give <item> to <name>.")
        )
    )


def _add(character: Character, rest: str, caller: Caller) -> CommandReply:
    head, *more = [part.strip() for part in rest.split("|")]
    kind = more[0] if more else ""
    if kind and kind.lower() not in inventory.KIND_WORDS:
        return CommandReply(
            caller.say(
                _("An item's kind is one of: {kinds}."),
                kinds=", ".join(inventory.kind_label(kind, caller.locale) for kind in inventory.KINDS),
            )
        )
    name, count = _counted(head)
    item = inventory.add(
        character, name, quantity=count, kind=kind, description=more[1] if len(more) > 1 else ""
    )
    shown = f"{item['name']} x{count}" if count != 1 else item["name"]
    return CommandReply(
        caller.say(_("{who} takes the {item}."), who=character.name, item=shown), private=False
    )


def _give(character: Character, rest: str, caller: Caller) -> CommandReply:
    parts = re.split(r"\s+(?:to|给)\s+", rest, maxsplit=1)
    what, whom = (parts[0].strip(), parts[1].strip()) if len(parts) == 2 else ("", "")
    if not what or not whom:
        return CommandReply(caller.say(_("Use .inv give <item> to <name>.")))
    receiver = inventory.character_named(caller.room_id, whom)
    if receiver is None:
        return CommandReply(caller.say(_("Nobody here plays a character called {name}."), name=whom))
    name, count = _counted(what)
    item = inventory.give(character, receiver, name, count)
    shown = f"{item['name']} x{count}" if count != 1 else item["name"]
    return CommandReply(
        caller.say(
            _("{who} gives the {item} to {whom}."), who=character.name, item=shown, whom=receiver.name
        ),
        private=False,
    )


@command("money", "gold", "钱", "金钱", help=_("money: .money, .money +N, .money -N"))
def money(arguments: str, caller: Caller) -> CommandReply:
    """Show or change the caller's active character's money."""
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return _no_character(caller)
    text = arguments.strip().replace(" ", "")
    coins = inventory.currency(character, caller.locale)
    if not text:
        return CommandReply(
            caller.say(
                _("{who} has {money} {currency}."), who=character.name, money=character.money, currency=coins
            )
        )
    if not re.fullmatch(r"[+-]\d{1,9}", text):
        return CommandReply(caller.say(_("Use .money, .money +N or .money -N.")))
    try:
        before, after = inventory.add_money(character, int(text))
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _("{who}'s money: {before} → {after} {currency}."),
            who=character.name,
            before=before,
            after=after,
            currency=coins,
        ),
        private=False,
    )


@command(
    "quest",
    "quests",
    "任务",
    help=_(
        "quests: .quest; keeper: .quest add <name> [| description], .quest set <name> <status>, "
        ".quest secret <name> [| description], .quest reveal <name>"
    ),
)
def quest(arguments: str, caller: Caller) -> CommandReply:
    """List the quests the caller may see; a keeper opens, settles and hides them."""
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = _WORDS.get(word, word.lower()), rest.strip()
    if word in ("", "list"):
        return _quests(caller)
    if not caller.is_keeper:
        return keeper_refusal(caller)
    try:
        if word in ("add", "open"):
            name, _bar, description = rest.partition("|")
            found, _new = quests.open_quest(caller.room_id, name, description)
            text = caller.say(_("A new quest: {name}."), name=found.name)
            return CommandReply(text, private=found.secret)
        if word == "set":
            name, _space, status = rest.rpartition(" ")
            found, _before = quests.set_status(caller.room_id, name or status, status if name else "")
            text = caller.say(
                _("Quest {name}: {status}."), name=found.name, status=caller.say(quests.LABELS[found.status])
            )
            return CommandReply(text, private=found.secret)
        if word == "secret":
            name, _bar, description = rest.partition("|")
            if quests.find(caller.room_id, name) is None:
                # A quest the keepers know of from the start: it is never shown to players.
                found, _new = quests.open_quest(caller.room_id, name, description, secret=True)
                return CommandReply(
                    caller.say(_("A new quest for the keepers only: {name}."), name=found.name)
                )
            # Saying it again keeps it secret: a retyped line must never reveal a quest.
            found = quests.set_secret(caller.room_id, name, True)
            return CommandReply(caller.say(_("Quest {name} is for the keepers only now."), name=found.name))
        if word == "reveal":
            found = quests.set_secret(caller.room_id, rest, False)
            # A line of the story: the players learn of the quest as the keeper shows it.
            return CommandReply(
                caller.say(_("A quest comes to light: {name}."), name=found.name), private=False
            )
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _(
                "Use .quest, .quest add <name> [| description], .quest set <name> <status>, "
                ".quest secret <name> [| description], .quest reveal <name>."
            )
        )
    )


def _quests(caller: Caller) -> CommandReply:
    shown = quests.for_viewer(quests.entries(caller.room_id), is_keeper=caller.is_keeper)
    if not shown:
        return CommandReply(caller.say(_("No quests yet.")))
    lines = [caller.say(_("Quests:"))]
    for entry in shown:
        secret = caller.say(_(" (keepers only)")) if entry.get("secret") else ""
        about = f" · {entry['description']}" if entry["description"] else ""
        lines.append(f"  {entry['name']} [{caller.say(quests.LABELS[entry['status']])}]{secret}{about}")
    return CommandReply("\n".join(lines))
