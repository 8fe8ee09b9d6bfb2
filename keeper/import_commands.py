"""`.import`: SillyTavern character cards and Loreweaver lorecards at the table.

`<ref>` is a card of an installed pack (`<pack id>/<path>`, as `list_pack_cards` and
`.import list` name it) or a card picture uploaded to this room (its hash, or its file
name). The card is read as data (`packs/cards.py`) and split (拆卡) into its halves:

- `.import <ref> [coc7|dnd5e] pc [as <name>] [replace]`: anyone; the character half
  becomes the caller's character (the name, or the one after `as`, and who they are
  for the Keeper's brief), with values rolled under the rule system; a card picture
  uploaded here becomes its portrait. A name a sheet of the room holds is refused as
  for any new character (`keeper/character_names.py`).
- `.import <ref> world`: keepers; takes the world half in one step and answers with
  the split (what is character, what is world, what is left out): the lorebook into
  the room's lore (keeper-only; a lorecard's entries are for everyone unless marked
  `secret`), the card's opening and prose as a keeper-only constant entry (the
  module's brief), a lorecard's typed variables under their own ids with their bounds
  and labels, the MVU `[InitVar]` tree as `mvu.`-prefixed variables (hidden until
  `.var expose mvu.`), the card's hook scripts (they run only in the hooks sandbox);
  and, as the reference does, a card with a character half (`CardSplit.persona`) puts
  that character on the room's pregenerated roster (`characters.pregen_add`), for a
  player's `.pc claim`. Importing the same card again replaces what it brought and keeps
  variables' values and who claimed the pregen.
  `.import <ref> world preview` shows the split and changes nothing.
- A player's `pc` import of a world card takes its character half only (a card that
  is nothing but machinery is refused) and says the world half stays with the keeper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import replace as replace_reply

from django.db import transaction

from base.i18n import Refusal, _
from keeper import character_names, characters, lore, variables
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.models import LoreEntry, TableSettings
from keeper.rules.packs import catalog
from media_store.models import MediaItem, MediaKind
from media_store.services import read_pieces
from packs import cards, hook_cache
from packs import services as pack_services
from packs.declarations import ID_CHARS
from packs.models import RoomHook

MAX_MVU_VARIABLES = 128  # of a room's 256 variables
MAX_BRIEF_CHARS = 2000  # a constant entry: it takes its share of every brief's lore budget
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


def _typed(spec: dict) -> str:
    """A typed variable as the split names it: its id, then its bounds in brackets."""
    bounds = (spec.get("min"), spec.get("max"))
    if bounds == (None, None):
        return spec["id"]
    low, high = ("" if bound is None else bound for bound in bounds)
    return f"{spec['id']} ({low}–{high})"


def _split_lines(split: cards.CardSplit, caller: Caller) -> list[str]:
    """The split, as the keeper reads it: what is character, what is world, what is left out."""
    lines = [caller.say(_("The card {name} ({kind}) splits into:"), name=split.name, kind=split.kind)]
    shown = [split.field_names.get(field, field) for field, text in split.character.items() if text]
    lines.append(
        caller.say(_("Character half: {fields}."), fields=", ".join(shown) or caller.say(_("nothing")))
    )
    titles = ", ".join(entry.title for entry in split.lore[:12]) + (" …" if len(split.lore) > 12 else "")
    lines.append(
        caller.say(_("World half: {count} lore entries ({titles})."), count=len(split.lore), titles=titles)
    )
    if secret := sum(entry.secret for entry in split.lore):
        lines.append(caller.say(_("{count} of them keeper-only (secret)."), count=secret))
    if split.variables:
        lines.append(
            caller.say(
                _("{count} typed variables under their own ids: {ids}."),
                count=len(split.variables),
                ids=", ".join(_typed(spec) for spec in split.variables[:12]),
            )
        )
    if mvu := split.mvu[:MAX_MVU_VARIABLES]:  # a lorecard has none: no empty line for them
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
    if _brief(split, caller):
        lines.append(caller.say(_("Its opening and prose: the module's brief, keeper-only.")))
    left_out = list(split.discarded)
    if len(split.mvu) > MAX_MVU_VARIABLES:
        left_out.append(f"{len(split.mvu) - MAX_MVU_VARIABLES} MVU variables over the room's cap")
    lines.append(caller.say(_("Left out: {parts}."), parts="; ".join(left_out) or caller.say(_("nothing"))))
    return lines


def _brief(split: cards.CardSplit, caller: Caller) -> dict | None:
    """The card's prose as one keeper-only constant lore entry (the module's brief): what
    the reference's keepers read to open play with the module's own opening; None when
    the card has none."""
    parts = [
        (caller.say(_("Description")), split.character.get("description", "")),
        (caller.say(_("Scenario")), split.character.get("scenario", "")),
        (caller.say(_("Opening")), split.character.get("first_mes", "")),
        *((caller.say(_("Other opening")), opening) for opening in split.openings),
    ]
    text = "\n\n".join(f"{label}: {value}" for label, value in parts if value)
    if not text:
        return None
    return {
        "title": caller.say(_("Brief of {name}"), name=split.name)[:200],
        "keywords": [],
        "secondary": [],
        "content": text[:MAX_BRIEF_CHARS],
        "constant": True,
        "selective": False,
        "order": 0,
        "visibility": LoreEntry.Visibility.KEEPERS,
    }


def _background(split: cards.CardSplit) -> str:
    """Who the card's character is, for the Keeper's brief: its description,
    personality and scenario."""
    fields = ("description", "personality", "scenario")
    return "\n\n".join(split.character[field] for field in fields if split.character.get(field))[:4000]


def _portrait(picture: MediaItem | None) -> dict | None:
    """The card's own picture, uploaded to this room, as a character's portrait."""
    if picture is None:
        return None
    return {"hash": picture.sha256, "mime": picture.mime, "size": picture.size, "name": picture.name}


def _roster_line(split: cards.CardSplit, system: str, picture: MediaItem | None, caller: Caller) -> str:
    """The card's character put on the room's pregenerated roster, as the reference's
    world import does, and the line that says so; "" for a card with no persona (a
    world book, a lorecard whose prose tells a module: no one to play)."""
    if not split.persona:
        return ""
    name = character_names.chosen_name("", split.character.get("name") or split.name)
    if not name:
        return ""
    outcome = characters.pregen_add(
        caller.room_id, system=system, name=name, background=_background(split), avatar=_portrait(picture)
    )
    if outcome == "taken":
        return caller.say(
            _("{name} is not on the pregenerated roster: another character of this table holds the name."),
            name=name,
        )
    if outcome == "full":
        return caller.say(
            _("{name} is not on the pregenerated roster: it holds {limit} characters already."),
            name=name,
            limit=characters.MAX_PREGENS,
        )
    return caller.say(
        _("{name} is on this room's pregenerated roster: a player takes it with .pc claim {name}."),
        name=name,
    )


def _apply_world(split: cards.CardSplit, system: str, picture: MediaItem | None, caller: Caller) -> str:
    source = f"card {split.name}"[:200]
    shared = LoreEntry.Visibility.EVERYONE if split.shared_lore else LoreEntry.Visibility.KEEPERS
    brief = _brief(split, caller)
    with transaction.atomic():
        added = lore.add_entries(
            caller.room_id,
            [
                *([brief] if brief else []),
                *(
                    {
                        "title": entry.title[:200],
                        "keywords": entry.keys,
                        "secondary": entry.secondary_keys,
                        "content": entry.content,
                        "constant": entry.constant,
                        "selective": entry.selective,
                        "order": entry.order,
                        "visibility": LoreEntry.Visibility.KEEPERS if entry.secret else shared,
                    }
                    for entry in split.lore
                    if entry.enabled
                ),
            ],
            source=source,
            visibility=LoreEntry.Visibility.KEEPERS,
        )
        specs = {spec["id"]: spec for spec in split.variables}
        for path, value in split.mvu[:MAX_MVU_VARIABLES]:
            spec = _mvu_spec(path, value)
            specs.setdefault(spec["id"], spec)  # two paths may read as one id ("a b", "a_b")
        declared = variables.declare(caller.room_id, list(specs.values()), source=source)
        RoomHook.objects.filter(room_id=caller.room_id, source=source).delete()
        RoomHook.objects.bulk_create(
            RoomHook(room_id=caller.room_id, source=source, position=n, code=code)
            for n, code in enumerate(split.hooks)
        )
        hook_cache.changed()  # a bulk write sends no model signal
        roster = _roster_line(split, system, picture, caller)
    typed = {spec["id"] for spec in split.variables}
    imported = caller.say(
        _(
            "Imported the world of {name}: {lore} lore entries, {typed} new typed variables, "
            "{variables} new MVU variables, {hooks} hook scripts."
        ),
        name=split.name,
        lore=added - (1 if brief else 0),
        typed=sum(v.var_id in typed for v in declared),
        variables=sum(v.var_id not in typed for v in declared),
        hooks=len(split.hooks),
    )
    return "\n".join(line for line in (imported, roster) if line)


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
    character.background = _background(split)
    if picture is not None:  # the card's own picture, uploaded here
        character.avatar = _portrait(picture)
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
        "keeper: .import <ref> world (takes the world half), .import <ref> world preview"
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
        if "preview" in options:
            lines = _split_lines(split, caller)
            lines.append(caller.say(_("To take the world half into this room: .import {ref} world"), ref=ref))
            return CommandReply("\n".join(lines))
        try:  # `apply`, which once confirmed a preview, is still understood and changes nothing
            system = systems[0] if systems else TableSettings.of(caller.room_id).system
            applied = _apply_world(split, system, picture, caller)
        except Refusal as refused:
            return CommandReply(refused.message(caller.locale))
        return CommandReply("\n".join([*_split_lines(split, caller), applied]))
    if split.kind == "world" and not split.persona:
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
    reply = _import_pc(split, asked, picture, caller)
    if split.kind == "world" and not reply.private:  # imported: the machinery stayed behind
        left = caller.say(
            _(
                "Only the character half came: the world half of {name} is a keeper's, "
                "with .import {ref} world."
            ),
            name=split.name,
            ref=ref,
        )
        reply = replace_reply(reply, text=f"{reply.text}\n{left}")
    return reply
