"""Card files a pack ships (`contents.cards`), and how one splits into its halves (拆卡).

The files are SillyTavern's. A character card is JSON: V1 keeps its fields at the top
(`name`, `description`, `personality`, `scenario`, `first_mes`, `mes_example`); V2
(`spec: chara_card_v2`) and V3 (`spec: chara_card_v3`) keep them under `data`, beside
`creator_notes`, `system_prompt`, `post_history_instructions`, `alternate_greetings`,
`tags`, a `character_book` (the card's own lorebook) and `extensions`. A card picture is
a PNG with that JSON, base64-encoded, in a `tEXt` or `zTXt` chunk keyed `chara` (V2) or
`ccv3` (V3, which wins when both are there). A world book is JSON with `entries`: an
object keyed by uid in SillyTavern's own spelling (`key`, `keysecondary`, `comment`,
`order`, `disable`), or a list in a card's (`keys`, `secondary_keys`, `insertion_order`,
`enabled`); both spellings are read in either place.

`split_card` parses a file into the character half (its text fields) and the world
half: the lorebook entries; the MVU (MagVarUpdate) initial variables, from the entries
titled `[InitVar]` or `[InitialVariables]` or marked `@@initial_variables` (JSON or
YAML, values often `[value, "description"]`), flattened to dotted paths and scalar
leaves; and the scripts in `extensions.loreweaver_hooks`. A Loreweaver lorecard
(`format: loreweaver.card`) is split by `packs/lorecard.py`, into the same halves
plus its typed variables. What is not imported is named in `discarded`: system
prompt, regex and TavernHelper scripts, disabled entries, MVU's update rules and
other `[mvu…]` entries, EJS template blocks (`<% … %>`, code no model should read),
an entry's `@@if` condition (the entry fires on its keys alone) and its other
decorators, entries marked `@@render_…` or `@@iframe` (markup for SillyTavern's screen). `read_card` is what
a pack's build and install need: the kind, which decides how the card imports. As
the reference splits cards (拆卡), a card carrying machinery (hook scripts, an
`[InitVar]` entry, typed variables, a template block, a keeper-only `secret` entry)
is `world`, whatever persona it has, and so is a world book; any other card is
`character`. A player's import of a world card takes only its character half.

Cards come from anyone, so every problem is a `CardError` naming the file and the
problem, never an exception from inside a parser. Reading the bytes is
`packs/card_bytes.py`: sizes are capped before anything is decoded (the file, each PNG
text chunk, what a `zTXt` inflates to); JSON and YAML are checked for nesting before
they are parsed, since both parsers recurse per level. Here each field's type is
checked and text loses its control characters. Past the caps a character
field or an entry's content is cut, and the cut is listed in `discarded`; MVU variables
past theirs are dropped and counted. Too many entries or hook scripts, or a hook script
too long, are refused instead: a script cut short would not run.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from base.i18n import _
from packs import card_bytes, lorecard, safe_yaml
from packs.card_bytes import MAX_CARD_BYTES, CardError

__all__ = ["MAX_CARD_BYTES", "CardError", "CardSplit", "LoreBookEntry", "read_card", "split_card"]

MAX_FIELD_CHARS = 20_000  # a character field, or an entry's content
MAX_ENTRIES = 500
MAX_HOOKS = 16
MAX_HOOK_CHARS = 40_000
MAX_VARIABLES = 200
MAX_VARIABLE_PATH = 120
MAX_INIT_VARIABLES_BYTES = 256 * 1024  # the source of a card's [InitVar] entries, together

Scalar = str | int | float | bool

_CHARACTER_FIELDS = ("description", "personality", "scenario", "first_mes", "mes_example", "creator_notes")
_DEFAULT_ORDER = 100  # SillyTavern's insertion order for an entry that gives none
_MAX_TITLE_CHARS = 200  # a title is a label: a longer comment is cut, not refused
# Lone surrogates too: JSON's \ud800 escapes make them, and they cannot be encoded.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_CODE_FENCE = re.compile(r"\A```[^\n]*\n(.*)\n```\Z", re.DOTALL)
_MVU_MARKER = re.compile(r"\[mvu[^\]]*\]", re.IGNORECASE)
_UPDATE_RULES = ("[mvu_update]", "变量更新规则", "variable update rule")
# One EJS block in any of its forms (`<%=`, `<%-`, `<%_`), or a `<%` never closed.
_TEMPLATE = re.compile(r"<%.*?%>|<%.*\Z", re.DOTALL)
_DECORATOR = re.compile(r"@@(\w+)[ \t]*(.*)")


@dataclass(frozen=True)
class LoreBookEntry:
    """One lorebook entry of a card's world half."""

    title: str  # the entry's comment or name, else its first key, else "entry N"
    keys: list[str]
    secondary_keys: list[str]
    content: str
    constant: bool  # always in the prompt
    selective: bool  # needs a secondary key too
    order: int  # insertion_order (a card's) or order (a world book's); 100 when neither
    enabled: bool  # always true: a disabled entry is not imported, only counted in `discarded`
    secret: bool = False  # keeper-only lore (`secret: true`): world machinery


@dataclass(frozen=True)
class CardSplit:
    """A card file split into its halves, and what of it is not imported."""

    name: str  # the character's, or the world book's (else the file's stem)
    kind: str  # "character" | "world"
    character: dict[str, str]
    lore: list[LoreBookEntry]
    mvu: list[tuple[str, Scalar]]  # dotted path -> initial value
    hooks: list[str]
    discarded: list[str]
    # A lorecard's typed variables, as `packs.declarations` declares them (their own ids).
    variables: list[dict] = dataclasses.field(default_factory=list)
    openings: list[str] = dataclasses.field(default_factory=list)  # the alternate openings (greetings)
    # Whether a player may take the character half: a persona beyond a name (a
    # lorecard: a personality, since its opening and description tell the module).
    persona: bool = True
    # A lorecard marks its keeper-only entries `secret`: the rest are for everyone. A
    # SillyTavern card marks nothing, so all its lore stays keeper-only.
    shared_lore: bool = False
    # The card's own name of a character field where its format names it otherwise (a
    # lorecard's `opening` is kept as `first_mes`): the split names what the author wrote.
    field_names: dict[str, str] = dataclasses.field(default_factory=dict)


def split_card(path: str, data: bytes) -> CardSplit:
    """The card file `path` split into its character half and its world half, or
    refused (`CardError`) naming the problem."""
    card = card_bytes.load(path, data)
    if not isinstance(card, dict):
        raise CardError(_("The card {path} is not a character card or a world book."), path=path)
    if card.get("format") == lorecard.FORMAT:
        return lorecard.split_lorecard(_Split(path), card)
    if "entries" in card and "data" not in card and "spec" not in card:
        return _split_world_book(path, card)
    return _split_character_card(path, card)


def read_card(path: str, data: bytes) -> dict:
    """`{name, kind}` of the card file `path` (its stem, a lorecard's without its
    `.lorecard`, and the kind `split_card` finds), or refused naming the problem."""
    stem = PurePosixPath(path).stem
    return {"name": stem.removesuffix(".lorecard") or stem, "kind": split_card(path, data).kind}


class _Split:
    """What a split gathers as it reads, and what it leaves out."""

    max_entries = MAX_ENTRIES  # read by `packs.lorecard`, which cannot import this module

    def __init__(self, path: str) -> None:
        self.path = path
        self.lore: list[LoreBookEntry] = []
        self.variables: dict[str, Scalar] = {}
        self.discarded: Counter[str] = Counter()
        self.init_bytes = 0  # YAML is parsed three times: the budget is per card, not per entry
        # World machinery by count: what makes a card `world` (see `machinery`).
        self.initvar_entries = self.template_blocks = 0

    def text(self, value: Any, field: str) -> str:
        """`value` as clean text ("" when absent), refused when it is not text."""
        if value is None:
            return ""
        if not isinstance(value, str):
            raise CardError(_("In the card {path}, {field} is not text."), path=self.path, field=field)
        return _CONTROL.sub("", value).strip()

    def capped(self, value: Any, field: str) -> str:
        text = self.without_templates(self.text(value, field))
        if len(text) > MAX_FIELD_CHARS:
            self.discarded[f"{field.rpartition('.')[2]} cut at {MAX_FIELD_CHARS} characters"] += 1
            return text[:MAX_FIELD_CHARS]
        return text

    def without_templates(self, text: str) -> str:
        """`text` without its EJS template blocks (`<% ... %>`, a dangling `<%` to the
        end): they are code no model should read, so they are counted and left out."""
        if "<%" not in text:
            return text
        text, count = _TEMPLATE.subn("", text)
        self.template_blocks += count
        self.discarded["template (EJS) block"] += count
        return text.strip()

    def machinery(self, variables: int = 0) -> bool:
        """Whether the card carries world machinery: an `[InitVar]` declaration, typed
        variables, a template block or a keeper-only entry (hook scripts count too, and
        `kind` adds them)."""
        return bool(
            self.initvar_entries or variables or self.template_blocks or any(e.secret for e in self.lore)
        )

    def texts(self, value: Any, field: str) -> list[str]:
        """`value` as a list of non-empty clean texts, refused when it is no list of texts."""
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise CardError(
                _("In the card {path}, {field} is not a list of texts."), path=self.path, field=field
            )
        return [text for item in value if (text := _CONTROL.sub("", item).strip())]

    def flag(self, value: Any, field: str, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise CardError(
                _("In the card {path}, {field} is not true or false."), path=self.path, field=field
            )
        return value

    def number(self, value: Any, field: str, default: int) -> int:
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise CardError(_("In the card {path}, {field} is not a number."), path=self.path, field=field)
        return int(value)

    def object(self, value: Any, field: str) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise CardError(_("In the card {path}, {field} is not an object."), path=self.path, field=field)
        return value

    def book(self, book: dict, field: str) -> None:
        """Reads a lorebook's entries into lore and MVU variables."""
        field = f"{field}.entries" if field else "entries"
        entries = book.get("entries")
        if entries is None:
            return
        if isinstance(entries, dict):
            located = [(f"{field}.{str(uid)[:40]}", entry) for uid, entry in entries.items()]
        elif isinstance(entries, list):
            located = [(f"{field}[{n}]", entry) for n, entry in enumerate(entries)]
        else:
            raise CardError(
                _("In the card {path}, {field} is neither a list nor an object."), path=self.path, field=field
            )
        if len(located) > MAX_ENTRIES:
            raise CardError(
                _("The card {path} has more than {limit} lorebook entries."),
                path=self.path,
                limit=MAX_ENTRIES,
            )
        for number, (where, entry) in enumerate(located, start=1):
            if not isinstance(entry, dict):
                raise CardError(
                    _("In the card {path}, {field} is not an object."), path=self.path, field=where
                )
            self.entry(entry, where, number)

    def entry(self, entry: dict, where: str, number: int) -> None:
        def spelled(*names: str) -> tuple[Any, str]:
            # A card says `keys`, a world book `key`: whichever the entry has.
            for name in names:
                if entry.get(name) is not None:
                    return entry[name], f"{where}.{name}"
            return None, f"{where}.{names[0]}"

        keys = self.texts(*spelled("keys", "key"))
        secondary = self.texts(*spelled("secondary_keys", "keysecondary"))
        title = (
            self.text(entry.get("comment"), f"{where}.comment")
            or self.text(entry.get("name"), f"{where}.name")
            or (keys[0] if keys else f"entry {number}")
        )[:_MAX_TITLE_CHARS]  # before any pattern looks at it
        decorators, content = _decorators(self.text(entry.get("content"), f"{where}.content"))
        # MVU reads [InitVar] entries whether they are on or not: they are usually off,
        # to stay out of the prompt. SillyTavern's own spellings declare variables too.
        squeezed = title.lower().replace(" ", "")
        if "[initvar]" in squeezed or "[initialvariables]" in squeezed or "initial_variables" in decorators:
            self.initvar_entries += 1
            self.init_variables(content)
            return
        if machinery := self.mvu_machinery(title):
            self.discarded[machinery] += 1
            return
        secret = self.flag(entry.get("secret"), f"{where}.secret", False)
        enabled = self.flag(entry.get("enabled"), f"{where}.enabled", True) and not self.flag(
            entry.get("disable"), f"{where}.disable", False
        )
        constant = self.flag(entry.get("constant"), f"{where}.constant", False)
        # SillyTavern marks entries selective by default; that only means something
        # when there are secondary keys to match.
        selective = self.flag(entry.get("selective"), f"{where}.selective", False) and bool(secondary)
        order = self.number(*spelled("insertion_order", "order"), _DEFAULT_ORDER)
        if not enabled:
            self.discarded["disabled lorebook entry"] += 1
            return
        if any(name.startswith(("render", "iframe")) for name in decorators):
            self.discarded["render entry"] += 1  # markup for SillyTavern's screen, not lore
            return
        if "if" in decorators:  # no condition language here: the entry fires on its keys
            self.discarded[f"condition of {title} (@@if {decorators['if'][:120]})"] += 1
        for name in sorted(set(decorators) - {"if"})[:4]:
            self.discarded[f"decorator @@{name[:40]} of {title}"] += 1
        content = self.without_templates(content)
        if not content:
            self.discarded["empty lorebook entry"] += 1
            return
        if len(content) > MAX_FIELD_CHARS:
            self.discarded["lorebook entry cut"] += 1
            content = content[:MAX_FIELD_CHARS]
        self.lore.append(
            LoreBookEntry(title, keys, secondary, content, constant, selective, order, enabled, secret)
        )

    @staticmethod
    def mvu_machinery(title: str) -> str | None:
        """The kind of MVU machinery an entry titled `title` is, if it is."""
        lowered = title.lower()
        if any(marker in lowered for marker in _UPDATE_RULES):
            return "MVU update rules"
        if "[mvu_plot]" in lowered:
            return "MVU plot entry"
        if _MVU_MARKER.search(title):
            return "MVU machinery entry"
        return None

    def init_variables(self, content: str) -> None:
        """Adds the variables of an [InitVar] entry's JSON or YAML (in a code fence or not)."""
        fenced = _CODE_FENCE.match(content)
        source = fenced.group(1) if fenced else content
        name = f"{self.path} [InitVar]"
        encoded = source.encode()
        self.init_bytes += len(encoded)
        if self.init_bytes > MAX_INIT_VARIABLES_BYTES:
            raise CardError(
                _("{name} is larger than {limit} bytes."), name=name, limit=MAX_INIT_VARIABLES_BYTES
            )
        tree = None
        if source[:1] in ("[", "{"):
            card_bytes.check_json(source, self.path)
            try:
                tree = json.loads(source, parse_constant=lambda _constant: None)
            except ValueError:
                tree = None  # not JSON after all: YAML may still read it
        if tree is None:
            card_bytes.check_yaml_depth(source, self.path)
            try:
                tree = safe_yaml.load(encoded, name=name, limit=MAX_INIT_VARIABLES_BYTES, refusal=CardError)
            except (ValueError, OverflowError) as problem:  # a constructor's, e.g. a date 2024-13-45
                raise CardError(
                    _("{name} is not valid YAML: {problem}"), name=name, problem=str(problem)[:200]
                )
        if tree is None:
            return
        if not isinstance(tree, dict):
            raise CardError(
                _("The [InitVar] entry of the card {path} holds no tree of variables."), path=self.path
            )
        self.flatten(tree, "")

    def flatten(self, tree: dict, prefix: str) -> None:
        """Adds the scalar leaves of `tree` under dotted paths; lists and nulls are left out."""
        for key, value in tree.items():
            key = _CONTROL.sub("", str(key))
            if key.startswith("$"):  # MVU's own: `$meta` (schema options), `$internal`
                continue
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict):
                self.flatten(value, path)
                continue
            if _is_described(value):
                value = value[0]
            value = _leaf(value)
            if value is None:
                continue
            if path not in self.variables and (
                len(path) > MAX_VARIABLE_PATH or len(self.variables) >= MAX_VARIABLES
            ):
                self.discarded["MVU variable over the cap"] += 1
                continue
            self.variables[path] = value

    def hooks(self, value: Any, field: str) -> list[str]:
        if isinstance(value, list) and len(value) > MAX_HOOKS:
            raise CardError(
                _("The card {path} has more than {limit} hook scripts."), path=self.path, limit=MAX_HOOKS
            )
        scripts = self.texts(value, field)
        if any(len(script) > MAX_HOOK_CHARS for script in scripts):
            raise CardError(
                _("The card {path} has a hook script longer than {limit} characters."),
                path=self.path,
                limit=MAX_HOOK_CHARS,
            )
        return scripts

    def done(
        self, name: str, kind: str, character: dict[str, str], hooks: list[str], **more: Any
    ) -> CardSplit:
        """The split gathered (`more`: the `CardSplit` fields a lorecard adds)."""
        return CardSplit(
            name=name,
            kind=kind,
            character=character,
            lore=self.lore,
            mvu=list(self.variables.items()),
            hooks=hooks,
            discarded=[_describe(part, count) for part, count in self.discarded.items()],
            **more,
        )


def _split_world_book(path: str, book: dict) -> CardSplit:
    split = _Split(path)
    name = split.text(book.get("name"), "name") or PurePosixPath(path).stem
    split.book(book, "")
    return split.done(name, "world", {}, [], persona=False)


def _split_character_card(path: str, card: dict) -> CardSplit:
    split = _Split(path)
    if card.get("data") is not None:
        fields, prefix = split.object(card["data"], "data"), "data."
    else:
        fields, prefix = card, ""  # V1: the fields at the top
    name = split.capped(fields.get("name"), f"{prefix}name")
    if not name:
        raise CardError(_("The card {path} is not a character card or a world book."), path=path)
    character = {"name": name}
    for field in _CHARACTER_FIELDS:
        value = fields.get(field)
        if field == "creator_notes" and value is None:
            value = fields.get("creatorcomment")  # SillyTavern's V1 spelling
        if text := split.capped(value, f"{prefix}{field}"):
            character[field] = text
    if tags := ", ".join(split.texts(fields.get("tags"), f"{prefix}tags")):
        character["tags"] = split.capped(tags, f"{prefix}tags")
    book = split.object(fields.get("character_book"), f"{prefix}character_book")
    split.book(book, f"{prefix}character_book")
    extensions = split.object(fields.get("extensions"), f"{prefix}extensions")
    hooks = split.hooks(extensions.get("loreweaver_hooks"), f"{prefix}extensions.loreweaver_hooks")
    openings = split.texts(fields.get("alternate_greetings"), f"{prefix}alternate_greetings")
    _count_left_out(split, fields, extensions)
    # The reference's rule (拆卡): machinery makes a world card, whatever else it has.
    kind = "world" if hooks or split.machinery() else "character"
    return split.done(name, kind, character, hooks, openings=openings, persona=list(character) != ["name"])


def _count_left_out(split: _Split, fields: dict, extensions: dict) -> None:
    """Names the card's parts that are not imported; they are counted, never checked."""
    if isinstance(fields.get("group_only_greetings"), list) and fields["group_only_greetings"]:
        split.discarded["group-only greeting"] += len(fields["group_only_greetings"])
    for field, part in (
        ("system_prompt", "system prompt"),
        ("post_history_instructions", "post-history instructions"),
    ):
        if isinstance(fields.get(field), str) and fields[field].strip():
            split.discarded[part] = 1
    depth_prompt = extensions.get("depth_prompt")
    if (
        isinstance(depth_prompt, dict)
        and isinstance(depth_prompt.get("prompt"), str)
        and depth_prompt["prompt"].strip()
    ):
        split.discarded["character's note (depth prompt)"] = 1
    if isinstance(extensions.get("regex_scripts"), list) and extensions["regex_scripts"]:
        split.discarded["regex script"] += len(extensions["regex_scripts"])
    helper = _tavern_helper_scripts(extensions)
    if helper:
        split.discarded["TavernHelper script"] += helper
    assets = fields.get("assets")
    if isinstance(assets, list):  # V3; the default icon is the picture itself
        other = [
            asset for asset in assets if not (isinstance(asset, dict) and asset.get("uri") == "ccdefault:")
        ]
        if other:
            split.discarded["asset"] += len(other)


def _tavern_helper_scripts(extensions: dict) -> int:
    """How many TavernHelper scripts: `TavernHelper_scripts` of older versions, or the
    `scripts` of `tavern_helper` (an object, or a list of [key, value] pairs)."""
    count = (
        len(extensions["TavernHelper_scripts"])
        if isinstance(extensions.get("TavernHelper_scripts"), list)
        else 0
    )
    helper = extensions.get("tavern_helper")
    if isinstance(helper, list):
        helper = {
            pair[0]: pair[1]
            for pair in helper
            if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
        }
    if isinstance(helper, dict) and isinstance(helper.get("scripts"), list):
        count += len(helper["scripts"])
    return count


def _decorators(content: str) -> tuple[dict[str, str], str]:
    """SillyTavern's decorator lines at the top of an entry (`@@if <condition>`,
    `@@initial_variables`, ...) by name, and the content after them."""
    found: dict[str, str] = {}
    lines = content.split("\n")
    while lines and (decorator := _DECORATOR.fullmatch(lines[0].strip())):
        found[decorator.group(1).lower()] = decorator.group(2).strip()
        lines.pop(0)
    return found, "\n".join(lines).strip()


def _leaf(value: Any) -> Scalar | None:
    """`value` as an MVU variable's value, or None when it is no scalar."""
    if isinstance(value, datetime.date):  # YAML reads 2024-05-01 as a date
        return value.isoformat()
    if isinstance(value, str):
        return _CONTROL.sub("", value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value if isinstance(value, int | bool) else None


def _is_described(value: Any) -> bool:
    """MVU's `[value, "description"]`."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and _leaf(value[0]) is not None
        and isinstance(value[1], str)
    )


_PLURALS = {
    "template (EJS) block": "template (EJS) blocks",
    "render entry": "render entries",
    "group-only greeting": "group-only greetings",
    "regex script": "regex scripts",
    "TavernHelper script": "TavernHelper scripts",
    "asset": "assets",
    "disabled lorebook entry": "disabled lorebook entries",
    "empty lorebook entry": "empty lorebook entries",
    "MVU plot entry": "MVU plot entries",
    "MVU machinery entry": "MVU machinery entries",
    "MVU variable over the cap": "MVU variables over the cap",
}


def _describe(part: str, count: int) -> str:
    """A line of `discarded`: "3 regex scripts", "system prompt"."""
    if part in _PLURALS:
        return f"{count} {part if count == 1 else _PLURALS[part]}"
    if part == "lorebook entry cut":
        return f"{count} lorebook {'entry' if count == 1 else 'entries'} cut at {MAX_FIELD_CHARS} characters"
    if part == "MVU update rules" and count > 1:
        return f"MVU update rules ({count} entries)"
    return part
