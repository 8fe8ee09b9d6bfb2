"""Characters and their sheets: making one, the member's active one, reading and
changing values, all checked against the room's rule pack."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models.options import Options
from django.utils import timezone

from base.i18n import Refusal, _, say
from keeper import character_names
from keeper.dice import roll_expression
from keeper.models import Character, StateStamp, Story, TableSettings
from keeper.rules.formula import evaluate
from keeper.rules.packs import Pack, Sheet, catalog
from media_store.models import MediaKind
from media_store.services import MediaError, find
from packs import hook_cache
from packs.services import hook_scripts_exist_sql
from rooms.models import AccessKey
from rooms.services import KeyMember


class SheetError(Refusal):
    """A sheet change the pack does not allow; the message tells the player why."""


class NameNotFound(Refusal):
    """A name the pack's sheet does not know (`text` says so): told with the pack's
    closest names, in the reader's language."""

    def __init__(self, pack: Pack, name: str, text: str, **values: object) -> None:
        super().__init__(text, name=name, **values)
        self.pack, self.name = pack, name

    def message(self, locale: str) -> str:
        """The refusal, with the names the player may have meant."""
        text = super().message(locale)
        close = self.pack.sheet.closest(self.name, locale)
        if close:
            text += say(locale, _(" Did you mean: {names}?"), names=", ".join(close))
        return text


class NotOnTheSheet(NameNotFound, SheetError):
    """A sheet change that names nothing on the pack's sheet."""

    def __init__(self, pack: Pack, name: str) -> None:
        super().__init__(pack, name, _("{name!r} is not on a {system} sheet."), system=pack.id)


def pack_of(character: Character) -> Pack:
    """The rule pack a character was made under."""
    return catalog().packs[character.system]


def _sheet_names(character: Character) -> dict[str, int]:
    """Every value a formula may name; a characteristic not filled in yet counts as 0."""
    pack = pack_of(character)
    blank = dict.fromkeys([*pack.sheet.attributes, *(r.id for r in pack.sheet.resources)], 0)
    return {**blank, **character.attributes, **character.resources}


def derived(character: Character) -> dict[str, int]:
    """The pack's derived values (maxima and the like) for this sheet."""
    names = _sheet_names(character)
    return {name: evaluate(formula, names) for name, formula in pack_of(character).sheet.derived.items()}


@dataclass(frozen=True)
class Rolled:
    """A character's rolled values under a pack, before anyone keeps them (`.genchar`)."""

    system: str
    attributes: dict[str, int]
    resources: dict[str, int]


def roll_character(system: str) -> Rolled:
    """Roll every value the pack's `creation` rules name; the vitals start from the
    pack's `starting` formulas."""
    pack = catalog().packs[system]
    rolled = {key: roll_expression(expr)[0].total for key, expr in pack.sheet.creation.items()}
    attributes = {key: rolled[key] for key in pack.sheet.attributes if key in rolled}
    resources = {key: value for key, value in rolled.items() if key not in attributes}
    resources.update(_starting(pack, {**attributes, **resources}))
    return Rolled(system, attributes, resources)


def _starting(pack: Pack, values: dict[str, int]) -> dict[str, int]:
    """The vitals a fresh sheet with these values starts with (HP at its maximum...)."""
    names = {**dict.fromkeys(pack.sheet.attributes, 0), **values}
    for key, formula in pack.sheet.derived.items():
        names[key] = evaluate(formula, names)
    return {
        resource: evaluate(formula, names) if isinstance(formula, str) else formula
        for resource, formula in pack.sheet.starting.items()
    }


@dataclass(frozen=True)
class Made:
    """A character just made, and whether a sheet of the member's gave way to it
    (`replace`: kept for `.st undo`)."""

    character: Character
    replaced: bool = False


def character_create(
    *,
    room_id: int,
    member_id: str,
    system: str,
    name: str,
    rolled: Rolled | None = None,
    background: str = "",
    replace: bool = False,
) -> Made:
    """Make a character under `system` for the member (from `rolled` values, or rolled
    now) and make it their active one. A name a sheet of the room holds raises
    `character_names.NameTaken`, unless it is the member's own and `replace` is said:
    that sheet is deleted, kept for `.st undo`."""
    rolled = rolled or roll_character(system)
    skills = _base_skills(system)
    with transaction.atomic():
        giving_way = character_names.in_the_way(room_id, member_id, name, replace=replace)
        for sheet in giving_way:
            character_delete(sheet)
        Character.objects.filter(room_id=room_id, owner=member_id, active=True).update(active=False)
        character = Character.objects.create(
            room_id=room_id,
            owner=member_id,
            name=name,
            system=system,
            attributes=dict(rolled.attributes),
            skills=skills,
            resources=dict(rolled.resources),
            background=background,
            active=True,
        )
    return Made(character, replaced=bool(giving_way))


def _base_skills(system: str) -> dict[str, int]:
    """A fresh sheet's skills: the pack's base values."""
    return {key: base for key, base in catalog().packs[system].sheet.skills.items() if isinstance(base, int)}


MAX_PREGENS = 32  # the reference's roster cap: a keeper's imports, not a member's sheets


def pregen_add(
    room_id: int, *, system: str, name: str, background: str = "", avatar: dict | None = None
) -> str:
    """Put `name` on the room's pregenerated roster: a sheet rolled under `system` that
    no member owns until `.pc claim`. Answers `added`; `refreshed` when a pregen of the
    name is there already (its background and portrait are renewed, its values and who
    claimed it kept, as the reference keeps a live claim over a module's re-import);
    `taken` when another sheet of the room holds the name; `full` at `MAX_PREGENS`."""
    with transaction.atomic():
        held = character_names.holders(room_id, name)
        if held:
            if len(held) > 1 or not held[0].pregen:
                return "taken"
            pregen = held[0]
            pregen.background = background
            pregen.avatar = avatar or pregen.avatar
            pregen.save(update_fields=["background", "avatar"])
            return "refreshed"
        if Character.objects.filter(room_id=room_id, pregen=True).count() >= MAX_PREGENS:
            return "full"
        rolled = roll_character(system)
        Character.objects.create(
            room_id=room_id,
            name=name,
            system=system,
            attributes=dict(rolled.attributes),
            skills=_base_skills(system),
            resources=dict(rolled.resources),
            background=background,
            avatar=avatar,
            pregen=True,
        )
    return "added"


def finalize(character: Character) -> None:
    """Bring the sheet's vitals back to what its characteristics give (`.st finalize`:
    after characteristics were typed in by hand)."""
    pack = pack_of(character)
    character.resources = {**character.resources, **_starting(pack, _sheet_names(character))}
    character.save(update_fields=["resources"])


def shown_values(character: Character, locale: str) -> list[tuple[str, str]]:
    """The derived values the pack shows on a finished sheet, as (label, reading)."""
    values = derived(character)
    return [
        (entry.label.pick(locale), entry.reads(values[entry.id])) for entry in pack_of(character).sheet.shown
    ]


def sheet_word(sheet: Sheet, key: str, locale: str) -> str:
    """How a sheet's entry `key` is named to a reader in `locale`: a characteristic by
    its id in English (`STR`, as the books print it), anything else, and everything in
    another language, by the pack's display name (`Spot Hidden`, `力量`, `侦查`), so a
    Chinese sheet has no English on it; every one of them a word `.st` takes."""
    if locale == "en" and key in sheet.attributes:
        return key
    return sheet.skill_label(key, locale)


def describe(character: Character | Rolled, locale: str) -> str:
    """One line of a sheet: characteristics, then vitals, then what the pack shows."""
    pack = catalog().packs[character.system]
    gap = "" if locale == "en" else " "  # STR50 in English, 力量 50 in Chinese
    parts = [
        " ".join(
            f"{sheet_word(pack.sheet, k, locale)}{gap}{character.attributes.get(k, 0)}"
            for k in pack.sheet.attributes
        )
    ]
    if isinstance(character, Rolled):
        character = Character(
            system=character.system, attributes=character.attributes, resources=character.resources
        )
    vitals = resources_for(character, locale)
    if vitals:
        parts.append(
            " ".join(
                f"{r['label']} {r['value']}/{r['max']}" if "max" in r else f"{r['label']} {r['value']}"
                for r in vitals
            )
        )
    shown = shown_values(character, locale)
    if shown:
        parts.append(", ".join(f"{label} {reading}" for label, reading in shown))
    return " | ".join(parts)


# The groups of a sheet's listing (`.st`), in the order they are listed.
CHARACTERISTICS, VITALS, SHOWN, SKILLS = (
    _("Characteristics"),
    _("Vitals"),
    _("Derived"),
    _("Skills"),
)


def listing(character: Character, locale: str) -> list[tuple[str, list[str]]]:
    """The whole sheet as the player reads it, by group (a title marked with `_`, and
    its entries): each value under its display name in `locale`, the words `.ra`, `.st`
    and `.en` accept. In English a characteristic also shows its short id (STR)."""
    pack = pack_of(character)
    sheet = pack.sheet
    characteristics = []
    for key in sheet.attributes:
        label = sheet.skill_label(key, locale)
        shown = f"{label} ({key})" if locale == "en" and label != key else label
        characteristics.append(f"{shown} {int(character.attributes.get(key, 0))}")
    vitals = [
        f"{r['label']} {r['value']}/{r['max']}" if "max" in r else f"{r['label']} {r['value']}"
        for r in resources_for(character, locale)
    ]
    skills = []
    for key in [*sheet.skills, *(k for k in character.skills if k not in sheet.skills)]:
        found = sheet_value(character, key)
        if found is None:
            continue
        # A D&D skill reads as its ability's modifier, with its sign.
        reading = f"{found[1]:+d}" if isinstance(sheet.skills.get(key), str) else str(found[1])
        skills.append(f"{sheet.skill_label(key, locale)} {reading}")
    groups = [
        (CHARACTERISTICS, characteristics),
        (VITALS, vitals),
        (SHOWN, [f"{label} {reading}" for label, reading in shown_values(character, locale)]),
        (SKILLS, skills),
    ]
    return [(title, entries) for title, entries in groups if entries]


def character_delete(character: Character) -> None:
    """Delete a character (`.st delete`, or a sheet giving way to `replace`), keeping it
    `UNDO_SECONDS` for its owner's `.st undo`."""
    kept = [*_kept(character.room_id, character.owner), {**sheet_snapshot(character), "at": time.time()}]
    cache.set(_undo_key(character.room_id, character.owner), kept[-UNDO_KEEPS:], UNDO_SECONDS)
    character.delete()


# What a deleted sheet keeps for `.st undo`: everything its owner made or changed, what
# it carries and its money.
_SNAPSHOT_FIELDS = (
    "name",
    "system",
    "attributes",
    "skills",
    "resources",
    "status_effects",
    "items",
    "money",
    "background",
    "avatar",
    "pregen",
)
# How long `.st undo` can bring a deleted sheet back, and how many it keeps per member.
UNDO_SECONDS = 300
UNDO_KEEPS = 5


def sheet_snapshot(character: Character) -> dict:
    """The sheet as plain data, to bring it back with `sheet_restore`."""
    return {field: getattr(character, field) for field in _SNAPSHOT_FIELDS}


def _undo_key(room_id: int, member_id: str) -> str:
    return f"st-undo:{room_id}:{member_id}"


def _kept(room_id: int, member_id: str) -> list[dict]:
    """The member's sheets deleted in the last `UNDO_SECONDS`, the latest last."""
    kept = cache.get(_undo_key(room_id, member_id))
    if not isinstance(kept, list):  # nothing kept, or one sheet kept by an earlier version
        return [kept] if isinstance(kept, dict) else []
    return [sheet for sheet in kept if time.time() - sheet.get("at", 0) < UNDO_SECONDS]


class NothingToUndo(Refusal):
    """`.st undo` with no sheet deleted in the last few minutes."""


class SheetInTheWay(Exception):
    """`.st undo` while the member plays a newer character (`current`), without `replace`."""

    def __init__(self, name: str, current: str) -> None:
        super().__init__(f"{current} stands where {name} would come back")
        self.name, self.current = name, current


@dataclass(frozen=True)
class Restored:
    """A sheet `.st undo` brought back, and the active one it took the place of."""

    character: Character
    instead_of: str | None = None


def sheet_restore(room_id: int, member_id: str, *, name: str = "", replace: bool = False) -> Restored:
    """The member's last deleted sheet again, as their active one (under `name` when
    given). It never takes the place of the member's active character without
    `replace` (`SheetInTheWay`), nor a name another sheet holds (`NameTaken`, as for
    a new character); what gives way to `replace` is kept for `.st undo` in turn."""
    kept = _kept(room_id, member_id)
    if not kept:
        raise NothingToUndo(_("Nothing to undo: a deleted sheet is kept for 5 minutes."))
    snapshot = {field: value for field, value in kept[-1].items() if field in _SNAPSHOT_FIELDS}
    snapshot["name"] = character_names.chosen_name(name, snapshot["name"])
    with transaction.atomic():
        current = active_character(room_id, member_id)
        if current is not None and not replace:
            raise SheetInTheWay(snapshot["name"], current.name)
        giving_way = character_names.in_the_way(room_id, member_id, snapshot["name"], replace=replace)
        cache.set(_undo_key(room_id, member_id), kept[:-1], UNDO_SECONDS)
        # The active sheet goes last, so the next `.st undo` brings it back first.
        doomed = [sheet for sheet in giving_way if sheet != current]
        if current is not None:
            doomed.append(current)
        for sheet in doomed:
            character_delete(sheet)
        restored = Character.objects.create(room_id=room_id, owner=member_id, active=True, **snapshot)
    return Restored(restored, instead_of=current.name if current else None)


@functools.cache
def _active_sql(columns: str) -> str:
    meta = Character._meta
    room, owner, active = (meta.get_field(field).column for field in ("room", "owner", "active"))
    # At most one row: a member has one active character per room (a constraint).
    return f"SELECT {columns} FROM {meta.db_table} WHERE {room} = %s AND {owner} = %s AND {active} = %s"


def active_character(room_id: int, member_id: str) -> Character | None:
    """The member's active character in the room, if any."""
    # A raw query: every roll asks, and building the ORM's query cost more than running it.
    found = Character.objects.raw(_active_sql("*"), [room_id, member_id, True])
    return next(iter(found), None)


def table_name(room_id: int, member_id: str, name: str) -> str:
    """The name a member rolls under at the table: their active character's when they
    play one, else theirs (`name`)."""
    column = Character._meta.get_field("name").column
    with connection.cursor() as cursor:
        cursor.execute(_active_sql(column), [room_id, member_id, True])
        found = cursor.fetchone()
    return found[0] if found else name


@dataclass(frozen=True)
class KeyAtTheTable:
    """Who an access key speaks for now (`rooms.services.KeyMember`), and the name they
    roll under: their active character's when they play one, else theirs."""

    member: KeyMember
    table_name: str
    # The fields of the room's `TableSettings` asked for; None when none were, or the
    # room has no settings yet.
    settings: tuple | None = None
    # The story's (scene, clock minutes) when asked for: ("", None) when it has none.
    story: tuple[str, int | None] | None = None
    # The room's state stamp, asked for with the story (`keeper.state.state_stamp`).
    state_stamp: int | None = None
    # When asked whether the room has hook scripts and it has none: this thread's
    # `hook_cache.changes_here()` as it was read (`room_hook_scripts(none_as_of=)`).
    hooks_none_as_of: int | None = None


@functools.cache
def _key_at_the_table_sql(settings_fields: tuple[str, ...], with_story: bool, with_hooks: bool) -> str:
    keys, sheets, table, story, stamps = (
        AccessKey._meta,
        Character._meta,
        TableSettings._meta,
        Story._meta,
        StateStamp._meta,
    )
    key = _columns(keys, ("room", "member_id", "name", "role", "expires_at"))
    sheet = _columns(sheets, ("room", "owner", "active", "name"))
    chosen, joins = "", ""
    if settings_fields:
        # The settings row's key first: NULL when the room has none.
        chosen = "".join(f", s.{column}" for column in _columns(table, ("id", *settings_fields)).values())
        joins = f" LEFT JOIN {table.db_table} s ON s.{table.get_field('room').column} = k.{key['room']}"
    if with_story:
        # The story's key first: NULL when the room has none.
        chosen += "".join(f", t.{column}" for column in _columns(story, STORY_FIELDS).values())
        joins += f" LEFT JOIN {story.db_table} t ON t.{story.get_field('room').column} = k.{key['room']}"
        # And the state stamp (NULL, read as 0, in a room nothing of whose state was written).
        chosen += f", st.{stamps.get_field('version').column}"
        joins += f" LEFT JOIN {stamps.db_table} st ON st.{stamps.pk.column} = k.{key['room']}"
    if with_hooks:
        chosen += f", {hook_scripts_exist_sql('k.' + key['room'])}"
    return (
        f"SELECT k.{key['room']}, k.{key['member_id']}, k.{key['name']}, k.{key['role']}, c.{sheet['name']}"
        f"{chosen} FROM {keys.db_table} k "
        f"LEFT JOIN {sheets.db_table} c ON c.{sheet['room']} = k.{key['room']} "
        f"AND c.{sheet['owner']} = k.{key['member_id']} AND c.{sheet['active']} = %s{joins} "
        f"WHERE k.{keys.pk.column} = %s AND (k.{key['expires_at']} IS NULL OR k.{key['expires_at']} > %s)"
    )


# The `Story` fields a turn reads with its key (`key_at_the_table`), after the story's id.
STORY_FIELDS = ("id", "scene_name", "clock_minutes")


def _columns(meta: Options, fields: tuple[str, ...]) -> dict[str, str]:
    return {field: meta.get_field(field).column for field in fields}


def key_at_the_table(
    key_id: int, *, settings_fields: tuple[str, ...] = (), with_story: bool = False, with_hooks: bool = False
) -> KeyAtTheTable | None:
    """`rooms.services.key_member` and `table_name` in one query (every turn asks for
    the first, every roll for the second); None once the key was deleted or expired.
    With `settings_fields`, the same query also reads those fields of the room's
    `TableSettings` (`KeyAtTheTable.settings`): a turn needs its room's rule too; with
    `with_story`, the story's scene and clock (`KeyAtTheTable.story`) and the room's
    state stamp (`KeyAtTheTable.state_stamp`), which a turn that keeps the room's state
    leaves as they were for its chronicle entry and its closing `state`;
    with `with_hooks`, whether the room has any hook script
    (`KeyAtTheTable.hooks_none_as_of`)."""
    moment = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        changes_before = hook_cache.changes_here()
        cursor.execute(_key_at_the_table_sql(settings_fields, with_story, with_hooks), [True, key_id, moment])
        found = cursor.fetchone()
    if found is None:
        return None
    member, character, rest = found[:4], found[4], found[5:]
    settings = None
    if settings_fields:
        chosen, rest = rest[: len(settings_fields) + 1], rest[len(settings_fields) + 1 :]
        settings = tuple(chosen[1:]) if chosen[0] is not None else None
    story = stamp = None
    if with_story:
        story = (rest[1] or "", rest[2]) if rest[0] is not None else ("", None)
        stamp, rest = rest[len(STORY_FIELDS)] or 0, rest[len(STORY_FIELDS) + 1 :]
    hooks_none_as_of = changes_before if with_hooks and not rest[0] else None
    return KeyAtTheTable(
        KeyMember(*member),
        character or member[2],
        settings,
        story,
        state_stamp=stamp,
        hooks_none_as_of=hooks_none_as_of,
    )


def sheet_value(character: Character, name: str) -> tuple[str, int] | None:
    """(canonical key, value) of `name` on the sheet, or None if the sheet lacks it."""
    key = pack_of(character).sheet.canonical(name)
    if key is None:
        return None
    for table in (character.attributes, character.resources, character.skills):
        if key in table:
            return key, int(table[key])
    if key in pack_of(character).sheet.skills:
        base = pack_of(character).sheet.skills[key]
        if isinstance(base, str):  # D&D: the governing ability's modifier
            return key, (int(character.attributes.get(base, 10)) - 10) // 2
        return key, int(base)
    return None


def sheet_change(character: Character, name: str, operator: str, amount: int) -> tuple[str, int, int]:
    """Set (`=`), add (`+`) or subtract (`-`) on one sheet value; returns (key, old, new).

    The name must be one the pack knows: an unknown name is an error, never a new entry.
    """
    pack = pack_of(character)
    key = pack.sheet.canonical(name)
    if key is None:
        raise NotOnTheSheet(pack, name.strip())
    resource_ids = {r.id for r in pack.sheet.resources}
    if key in pack.sheet.attributes:
        table = character.attributes
    elif key in resource_ids:
        table = character.resources
    else:
        table = character.skills
    current = sheet_value(character, key)
    old = current[1] if current else 0
    new = amount if operator == "=" else old + amount if operator == "+" else old - amount
    if key in resource_ids:
        new = max(new, 0)
    table[key] = new
    character.save(update_fields=["attributes", "resources", "skills"])
    return key, old, new


def resources_for(character: Character, locale: str) -> list[dict]:
    """The sheet's vitals as `Resource` entries, in pack order, labelled for the viewer."""
    pack = pack_of(character)
    names = {**_sheet_names(character), **derived(character)}
    entries = []
    for resource in pack.sheet.resources:
        entry = {
            "id": resource.id,
            "label": resource.label.pick(locale),
            "value": int(character.resources.get(resource.id, 0)),
        }
        if resource.max is not None:
            entry["max"] = evaluate(resource.max, names) if isinstance(resource.max, str) else resource.max
        if resource.min:
            entry["min"] = resource.min
        entries.append(entry)
    return entries


def set_avatar(room_id: int, member_id: str, sha256: str, *, character: str | None, user: str | None) -> None:
    """Put an image of this room on the caller's own active character (`avatar_set`).

    Naming anyone else is `forbidden`; no active character is `avatar_no_character`;
    a hash that is not an image of this room is `media_not_found`.
    """
    own = Character.objects.filter(room_id=room_id, owner=member_id, active=True).first()
    if (user and user != member_id) or (character and (own is None or character != own.name)):
        raise MediaError("forbidden")
    if own is None:
        raise MediaError("avatar_no_character")
    item = find(room_id, sha256)
    if item.kind != MediaKind.IMAGE:
        raise MediaError("media_not_found")
    own.avatar = {"hash": item.sha256, "mime": item.mime, "size": item.size, "name": item.name}
    own.save(update_fields=["avatar"])
