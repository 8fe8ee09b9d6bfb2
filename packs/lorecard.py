"""Loreweaver Studio's own card bundle (`*.lorecard.json`: `format: loreweaver.card`,
`format_version: 1`), split into the halves `packs/cards.py` splits a SillyTavern card
into.

A bundle is one JSON object. Its character half: `name`, `description`, `personality`,
`scenario`, `opening` (the module's opening narration; kept as the card's first
message), `alternate_openings`, `dialogue_examples`, `author_notes`, `tags`. Its world
half: `variables`, typed (`{id, kind, visibility, labels, default, minimum, maximum,
options}`: `kind` number, bool, text or enum; `visibility` `player` (the default) or
`keeper`); `worldbook` entries (`title`, `content`, `keys`, `secondary_keys`, `secret`,
`constant`, `priority`, `enabled`, `condition`, and SillyTavern's matching and timing
fields); `hooks` (scripts, or `{code}` objects). A variable keeps its own id (lowercased,
spaces and hyphens read as `_`), its bounds and its labels.

What this server cannot keep is named in `discarded`, never dropped in silence: an
entry's `condition`, a `probability` under 100, `sticky`, `cooldown`, `delay`, a
selective logic other than "and any", case-sensitive matching, labels in a language
other than English or Chinese, the `pregens` cast, a top-level field it does not know.
An entry's `position`, `scan_depth` and whole-word matching follow this server's own
lore rules (`keeper/lore.py`). Any other format version, or a field
of the wrong type, is a `CardError` naming the card and the field: a pack build refuses
the card.
"""

from __future__ import annotations

from typing import Any

from base.i18n import _
from packs.card_bytes import CardError
from packs.declarations import VariableError, check_declaration

FORMAT = "loreweaver.card"
FORMAT_VERSION = 1
MAX_VARIABLES = 64  # a pack's own cap on declarations (`packs.declarations.MAX_DECLARED`)

# The bundle's prose field -> the character half's field (SillyTavern's name for it).
_PROSE = (
    ("description", "description"),
    ("personality", "personality"),
    ("scenario", "scenario"),
    ("opening", "first_mes"),
    ("dialogue_examples", "mes_example"),
    ("author_notes", "creator_notes"),
)
_AUDIENCE = {"player": "everyone", "keeper": "keepers"}
_READ = {
    "format",
    "format_version",
    "name",
    "tags",
    "alternate_openings",
    "variables",
    "worldbook",
    "hooks",
    "pregens",
    *(source for source, _field in _PROSE),
}
_LANGUAGES = ("en", "zh")
# An entry's fields that change when it fires and that this server's lore does not have,
# with the value that changes nothing.
_FIRING = (("probability", 100), ("sticky", 0), ("cooldown", 0), ("delay", 0), ("case_sensitive", False))


class _Translated:
    """A refusal's reason as a value of another refusal, read in the reader's language."""

    def __init__(self, refusal: VariableError) -> None:
        self.refusal = refusal

    def pick(self, locale: str) -> str:
        return self.refusal.message(locale)

    def __str__(self) -> str:  # the log's and the exception's own text: English
        return str(self.refusal)


def split_lorecard(split: Any, bundle: dict) -> Any:
    """The bundle `bundle` split (`split`: the `packs.cards` split of its file, which
    gathers and checks), as a `packs.cards.CardSplit`; refused naming the problem."""
    version = bundle.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise CardError(
            _(
                "The card {path} is a Loreweaver card of format version {version}; "
                "this server reads version {supported}."
            ),
            path=split.path,
            version=repr(version)[:20],
            supported=FORMAT_VERSION,
        )
    name = split.capped(bundle.get("name"), "name")
    if not name:
        raise CardError(_("The card {path} has no name."), path=split.path)
    character = {"name": name}
    for source, field in _PROSE:
        if text := split.capped(bundle.get(source), source):
            character[field] = text
    if tags := ", ".join(split.texts(bundle.get("tags"), "tags")):
        character["tags"] = split.capped(tags, "tags")
    openings = [
        split.without_templates(text)
        for text in split.texts(bundle.get("alternate_openings"), "alternate_openings")
    ]
    _worldbook(split, bundle.get("worldbook"))
    variables = _variables(split, bundle.get("variables"))
    hooks = split.hooks(_hook_codes(split, bundle.get("hooks")), "hooks")
    pregens = bundle.get("pregens")
    if isinstance(pregens, list) and pregens:
        split.discarded[f"pregens cast ({len(pregens)})"] += 1
    for field in sorted(set(bundle) - _READ, key=str)[:8]:  # a newer exporter's: named, not lost
        split.discarded[f"field {str(field)[:40]}"] += 1
    world = bool(hooks) or split.machinery(len(variables))
    return split.done(
        name,
        "world" if world else "character",
        character,
        hooks,
        variables=variables,
        openings=[text for text in openings if text],
        persona=bool(character.get("personality")),
        shared_lore=True,
        field_names={field: source for source, field in _PROSE if source != field},
    )


def _worldbook(split: Any, entries: Any) -> None:
    """Reads the bundle's entries into the split's lore, naming what of each cannot land."""
    if entries is None:
        return
    if not isinstance(entries, list):
        raise CardError(_("In the card {path}, {field} is not a list."), path=split.path, field="worldbook")
    if len(entries) > split.max_entries:
        raise CardError(
            _("The card {path} has more than {limit} lorebook entries."),
            path=split.path,
            limit=split.max_entries,
        )
    for number, entry in enumerate(entries):
        where = f"worldbook[{number}]"
        if not isinstance(entry, dict):
            raise CardError(_("In the card {path}, {field} is not an object."), path=split.path, field=where)
        content = split.text(entry.get("content"), f"{where}.content")
        condition = " ".join(split.text(entry.get("condition"), f"{where}.condition").split())
        landed = len(split.lore)
        split.entry(
            {
                "comment": entry.get("title"),
                "content": f"@@if {condition}\n{content}" if condition else content,
                "keys": entry.get("keys"),
                "secondary_keys": entry.get("secondary_keys"),
                "selective": bool(entry.get("secondary_keys")),
                "constant": entry.get("constant"),
                "enabled": entry.get("enabled"),
                "secret": entry.get("secret"),
                "insertion_order": entry.get("priority"),
            },
            where,
            number + 1,
        )
        if len(split.lore) > landed:
            _firing(split, entry, split.lore[-1].title)


def _firing(split: Any, entry: dict, title: str) -> None:
    """Names the fields of a landed entry that would change when it fires here."""
    for field, neutral in _FIRING:
        value = entry.get(field)
        if value is not None and value != neutral:
            split.discarded[f"{field} {str(value)[:20]} of {title}"] += 1
    logic = entry.get("selective_logic")
    if entry.get("secondary_keys") and logic not in (None, "", "and_any"):
        split.discarded[f"selective logic {str(logic)[:20]} of {title}"] += 1


def _variables(split: Any, variables: Any) -> list[dict]:
    """The bundle's typed variables as `packs.declarations` declares them, checked."""
    if variables is None:
        return []
    if not isinstance(variables, list):
        raise CardError(_("In the card {path}, {field} is not a list."), path=split.path, field="variables")
    if len(variables) > MAX_VARIABLES:
        raise CardError(
            _("The card {path} declares more than {limit} variables."), path=split.path, limit=MAX_VARIABLES
        )
    declared: dict[str, dict] = {}
    for number, variable in enumerate(variables):
        where = f"variables[{number}]"
        spec = _declaration(split, split.object(variable, where), where)
        try:
            check_declaration(spec)
        except VariableError as problem:
            raise CardError(
                _("In the card {path}, {field}: {problem}"),
                path=split.path,
                field=where,
                problem=_Translated(problem),
            ) from None
        if spec["id"] in declared:
            raise CardError(
                _("In the card {path}, {field} declares {id} a second time."),
                path=split.path,
                field=where,
                id=spec["id"],
            )
        declared[spec["id"]] = spec
    return list(declared.values())


def _declaration(split: Any, variable: dict, where: str) -> dict:
    """One typed variable of the bundle as a declaration (`packs.declarations`)."""
    raw_id = variable.get("id")
    var_id = "_".join(raw_id.strip().lower().replace("-", " ").split()) if isinstance(raw_id, str) else raw_id
    spec: dict = {"id": var_id, "kind": variable.get("kind")}  # no kind is no variable, as for the reference
    labels = split.object(variable.get("labels"), f"{where}.labels")
    kept = {language: labels[language] for language in _LANGUAGES if labels.get(language)}
    if other := sorted(str(language)[:10] for language in labels if language not in _LANGUAGES):
        split.discarded[f"labels of {var_id} in {', '.join(other)}"] += 1
    if kept:
        spec["label"] = kept
    for field, ours in (("default", "value"), ("minimum", "min"), ("maximum", "max"), ("options", "choices")):
        if variable.get(field) is not None:
            spec[ours] = variable[field]
    visibility = variable.get("visibility", "player")
    spec["audience"] = _AUDIENCE.get(visibility, visibility)
    return spec


def _hook_codes(split: Any, hooks: Any) -> Any:
    """The bundle's hook scripts as texts: a `{code}` object reads as its code."""
    if isinstance(hooks, str):
        return [hooks]
    if not isinstance(hooks, list):
        return hooks  # `split.hooks` refuses it, naming the field
    return [
        split.text(hook.get("code"), f"hooks[{number}].code") if isinstance(hook, dict) else hook
        for number, hook in enumerate(hooks)
    ]
