"""`.import`: SillyTavern character cards at the table.

`<ref>` is a card of an installed pack (`<pack id>/<path>`, as `list_pack_cards` and
`.import list` name it) or a card picture uploaded to this room (its hash, or its file
name). The card is read as data (`packs/cards.py`) and split (拆卡) into its halves:

- `.import <ref> [coc7|dnd5e] pc [as <name>] [replace]`: anyone; the character half
  becomes the caller's character (the name, or the one after `as`, and who they are
  for the Keeper's brief), with values rolled under the rule system; a card picture
  uploaded here becomes its portrait. A name a sheet of the room holds is refused as
  for any new character (`keeper/character_names.py`).
- `.import <ref> world`: keepers; shows the split first (what is character, what is
  world, what is left out) and changes nothing. `.import <ref> world apply` then takes
  the world half: the lorebook into the room's lore (keeper-only), the MVU `[InitVar]`
  tree as `mvu.`-prefixed variables (hidden until `.var expose mvu.`), the card's hook
  scripts (they run only in the hooks sandbox). Importing the same card again replaces
  what it brought.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction

from base.i18n import Refusal, _
from keeper import character_names, characters, lore, variables
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.models import LoreEntry, TableSettings
from keeper.rules.packs import catalog
from media_store.models import MediaItem, MediaKind
from media_store.services import read_pieces
from packs import cards
from packs import services as pack_services
from packs.declarations import ID_CHARS
from packs.models import RoomHook

MAX_MVU_VARIABLES = 128  # of a room's 256 variables
_HASH = re.compile(r"^[0-9a-f]{64}$")


class CardImportError(Refusal):
    """A card that cannot be found or imported."""


def _card_bytes(ref: str, room_id: int) -> tuple[str, bytes, MediaItem | None]:
    """(the file's name, its bytes, the room's picture it is, if one) for `ref` (see
    the module docstring)."""
    found = pack_services.card_file(ref)
    if found is not None:
        return *found, None
    items = MediaItem.objects.filter(room_id=room_id, kind=MediaKind.IMAGE)
    item = (items.filter(sha256=ref.lower()).first() if _HASH.match(ref.lower()) else None) or items.filter(
        name=ref
    ).order_by("-id").first()
    if item is None:
        raise CardImportError(
            _("No card {ref}: name a pack card (.import list) or a card picture uploaded here."),
            ref=ref[:120],
        )
    if item.size > cards.MAX_CARD_BYTES:
        raise CardImportError(_("The picture {ref} is too large to hold a card."), ref=ref[:120])
    return item.name, b"".join(read_pieces(item)), item


def _variable_id(path: str) -> str:
    cleaned = "".join(ch if ch in ID_CHARS or ch.isalpha() else "_" for ch in path).strip(".")
    return ("mvu." + cleaned)[:120].rstrip(".")


def _mvu_spec(path: str, value: object) -> dict:
    spec: dict = {"id": _variable_id(path), "label": {"en": path[:120]}, "audience": "keepers"}
    if isinstance(value, bool):
        return {**spec, "kind": "bool", "value": value}
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return {**spec, "kind": "number", "value": int(value)}
    return {**spec, "kind": "text", "value": str(value)[:200]}


def _split_lines(ref: str, split: cards.CardSplit, caller: Caller) -> list[str]:
    """The split, as the keeper reads it before applying a world import."""
    lines = [caller.say(_("The card {name} ({kind}) splits into:"), name=split.name, kind=split.kind)]
    shown = [name for name, text in split.character.items() if text]
    lines.append(
        caller.say(_("Character half: {fields}."), fields=", ".join(shown) or caller.say(_("nothing")))
    )
    titles = ", ".join(entry.title for entry in split.lore[:12]) + (" …" if len(split.lore) > 12 else "")
    lines.append(
        caller.say(_("World half: {count} lore entries ({titles})."), count=len(split.lore), titles=titles)
    )
    mvu = split.mvu[:MAX_MVU_VARIABLES]
    paths = ", ".join(path for path, _value in mvu[:8]) + (" …" if len(mvu) > 8 else "")
    lines.append(
        caller.say(
            _("{count} MVU variables, hidden from players until exposed ({paths})."),
            count=len(mvu),
            paths=paths,
        )
    )
    lines.append(
        caller.say(_("{count} hook scripts, run only in the hooks sandbox."), count=len(split.hooks))
    )
    left_out = list(split.discarded)
    if len(split.mvu) > MAX_MVU_VARIABLES:
        left_out.append(f"{len(split.mvu) - MAX_MVU_VARIABLES} MVU variables over the room's cap")
    lines.append(caller.say(_("Left out: {parts}."), parts="; ".join(left_out) or caller.say(_("nothing"))))
    lines.append(caller.say(_("To take the world half into this room: .import {ref} world apply"), ref=ref))
    return lines


def _apply_world(split: cards.CardSplit, caller: Caller) -> str:
    source = f"card {split.name}"[:200]
    with transaction.atomic():
        added = lore.add_entries(
            caller.room_id,
            (
                {
                    "title": entry.title[:200],
                    "keywords": entry.keys,
                    "secondary": entry.secondary_keys,
                    "content": entry.content,
                    "constant": entry.constant,
                    "selective": entry.selective,
                    "order": entry.order,
                }
                for entry in split.lore
                if entry.enabled
            ),
            source=source,
            visibility=LoreEntry.Visibility.KEEPERS,
        )
        specs = {}
        for path, value in split.mvu[:MAX_MVU_VARIABLES]:
            spec = _mvu_spec(path, value)
            specs.setdefault(spec["id"], spec)  # two paths may read as one id ("a b", "a_b")
        declared = variables.declare(caller.room_id, list(specs.values()), source=source)
        RoomHook.objects.filter(room_id=caller.room_id, source=source).delete()
        RoomHook.objects.bulk_create(
            RoomHook(room_id=caller.room_id, source=source, position=n, code=code)
            for n, code in enumerate(split.hooks)
        )
    return caller.say(
        _(
            "Imported the world of {name}: {lore} lore entries, {variables} new MVU variables, "
            "{hooks} hook scripts."
        ),
        name=split.name,
        lore=added,
        variables=len(declared),
        hooks=len(split.hooks),
    )


@dataclass(frozen=True)
class _PcImport:
    """How the caller asked for the card's character: the rule system, the name after
    `as` (the card's own when empty), `replace`, and the command as typed before `as`."""

    system: str
    name: str
    replace: bool
    typed: str


def _import_pc(
    split: cards.CardSplit, asked: _PcImport, picture: MediaItem | None, caller: Caller
) -> CommandReply:
    name = character_names.chosen_name(asked.name, split.character.get("name") or split.name)
    background = "\n\n".join(
        split.character[field]
        for field in ("description", "personality", "scenario")
        if split.character.get(field)
    )
    try:
        made = characters.character_create(
            room_id=caller.room_id,
            member_id=caller.member_id,
            system=asked.system,
            name=name,
            replace=asked.replace,
        )
    except character_names.NameTaken as taken:
        return CommandReply(
            character_names.refusal(taken, caller.locale, lambda typed: f"{asked.typed} as {typed}")
        )
    character = made.character
    character.background = background[:4000]
    if picture is not None:  # the card's own picture, uploaded here
        character.avatar = {
            "hash": picture.sha256,
            "mime": picture.mime,
            "size": picture.size,
            "name": picture.name,
        }
    character.save(update_fields=["background", "avatar"])
    lines = [
        caller.say(_("{name} joins the table from their card."), name=name),
        characters.describe(character, caller.locale),
    ]
    if made.replaced:
        lines.append(character_names.gave_way(caller.locale, name))
    return CommandReply("\n".join(lines), private=False)


def _list(caller: Caller) -> CommandReply:
    found = pack_services.pack_cards()
    if not found:
        return CommandReply(
            caller.say(_("No installed pack ships cards. Upload a card picture and use its hash."))
        )
    lines = [caller.say(_("Cards of the installed packs (.import <ref> pc, keepers: .import <ref> world):"))]
    lines += [f"  {card['ref']} · {card['kind']}" for card in found]
    return CommandReply("\n".join(lines))


@command(
    "import",
    help=_(
        "character cards: .import list, .import <ref> [coc7|dnd5e] pc; "
        "keeper: .import <ref> world (shows the split), .import <ref> world apply"
    ),
)
def import_card(arguments: str, caller: Caller) -> CommandReply:
    words = arguments.split()
    if not words or words[0].lower() == "list":
        return _list(caller)
    tail, replace = character_names.without_replace(" ".join(words[1:]))
    said = tail.split()
    named = next((n for n, word in enumerate(said) if word.lower() == "as"), len(said))
    ref, options = words[0], [word.lower() for word in said[:named]]
    systems = [word for word in options if word in catalog().packs]
    verbs = [word for word in options if word in ("pc", "world", "companion")]
    if "companion" in verbs:
        return CommandReply(
            caller.say(_("Companions cannot be imported on this server yet: use pc or world."))
        )
    verb = verbs[0] if verbs else "pc"
    if verb == "world" and not caller.is_keeper:
        return keeper_refusal(caller)
    try:
        file_name, data, picture = _card_bytes(ref, caller.room_id)
        split = cards.split_card(file_name, data)
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    if verb == "world":
        if "apply" not in options:
            return CommandReply("\n".join(_split_lines(ref, split, caller)))
        try:
            return CommandReply(_apply_world(split, caller))
        except Refusal as refused:
            return CommandReply(refused.message(caller.locale))
    if split.kind == "world":
        return CommandReply(
            caller.say(
                _("{name} is a world card: a keeper imports it with .import {ref} world."),
                name=split.name,
                ref=ref,
            )
        )
    asked = _PcImport(
        system=systems[0] if systems else TableSettings.of(caller.room_id).system,
        name=" ".join(said[named + 1 :]),
        replace=replace,
        typed=" ".join([".import", ref, *said[:named]]),
    )
    return _import_pc(split, asked, picture, caller)
