"""Loading rule packs: each is validated whole, and a bad one is refused with a message
that names the file and the field, never half-loaded."""

from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import yaml
from django.conf import settings
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

log = logging.getLogger(__name__)

BUILT_IN_DIR = Path(__file__).resolve().parent.parent / "packs"
BUILT_IN = ("coc7", "dnd5e")
LADDERS = ("coc7", "dnd5e")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_MAX = 40
# A check's die, as its frame's expression writes it ("1d100 b1", "2d20kh1+3").
_DIE = re.compile(r"d(100|20)(?!\d)", re.IGNORECASE)


class PackError(ValueError):
    """A pack that cannot be used; the message names the file and the field."""


class Localized(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: str = Field(min_length=1)
    zh: str | None = None

    def pick(self, locale: str) -> str:
        return (self.zh if locale == "zh" else None) or self.en


def readable(name: str) -> str:
    """A skill id as words, for a skill its pack gives no label: "spot_hidden" reads
    "Spot hidden"; "STR" and "侦查" read as they are."""
    words = " ".join(name.replace("_", " ").split())
    return words[:1].upper() + words[1:]


def folded(name: str) -> str:
    """A name as a player may type it, folded for comparison: case, underscores and
    runs of spaces do not count ("Spot  hidden", "spot_hidden" and "SPOT HIDDEN" are one)."""
    return " ".join(name.replace("_", " ").split()).casefold()


def die_of(expr: str) -> str:
    """The die a check was rolled with ("d100" or "d20"), from its frame's expression;
    "" when it names neither."""
    found = _DIE.search(expr)
    return f"d{found.group(1)}" if found else ""


class Label(BaseModel):
    """How a skill or characteristic reads: a short line in English, and in Chinese
    when the pack has it (English stands in for it otherwise)."""

    model_config = ConfigDict(extra="forbid")
    en: str = Field(min_length=1, max_length=LABEL_MAX)
    zh: str | None = Field(default=None, min_length=1, max_length=LABEL_MAX)

    @field_validator("en", "zh")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and (value != value.strip() or not value.isprintable()):
            raise ValueError("must be one line of text, without spaces around it")
        return value

    def pick(self, locale: str) -> str:
        """The label in `locale` (English when the pack has no Chinese)."""
        return (self.zh if locale == "zh" else None) or self.en


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roll: str
    target: str
    ladder: str
    house_rules: list[str] = []
    default_house_rule: str = ""

    @field_validator("roll")
    @classmethod
    def _roll(cls, value: str) -> str:
        if value not in ("d100", "d20"):
            raise ValueError("must be d100 (roll under) or d20 (roll over)")
        return value

    @field_validator("target")
    @classmethod
    def _target(cls, value: str) -> str:
        if value not in ("skill", "dc"):
            raise ValueError("must be skill or dc")
        return value

    @field_validator("ladder")
    @classmethod
    def _ladder(cls, value: str) -> str:
        if value not in LADDERS:
            raise ValueError(f"must be one of {', '.join(LADDERS)}")
        return value


class Resource(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    label: Localized
    max: str | int | None = None
    # The value at which it is spent (HP 0): a SideQuest client is told when it gets there.
    min: int = 0


class Shown(BaseModel):
    """A derived value a finished sheet shows (`.st finalize`), and how it reads."""

    model_config = ConfigDict(extra="forbid")
    id: str
    label: Localized
    # Values that read as words (CoC damage bonus 1 reads "+1d4"), by the value as text.
    values: dict[str, str] = {}
    # Shown with its sign (a D&D modifier reads "+2").
    signed: bool = False

    def reads(self, value: int) -> str:
        """How `value` reads on the sheet."""
        if str(value) in self.values:
            return self.values[str(value)]
        return f"{value:+d}" if self.signed else str(value)


class Sheet(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attributes: list[str] = Field(min_length=1)
    resources: list[Resource] = []
    derived: dict[str, str] = {}
    shown: list[Shown] = []
    creation: dict[str, str] = {}
    starting: dict[str, str | int] = {}
    # Skills and their base value (CoC: a number) or governing attribute (D&D: a name).
    skills: dict[str, int | str] = {}
    # Display names of skills and attributes by id (`spot_hidden: {en: Spot Hidden, zh: 侦查}`).
    labels: dict[str, Label] = {}
    aliases: dict[str, str] = {}

    # Every name a player may type for a key, folded (`folded`): ids, aliases and the
    # display names in each language. Filled once the sheet is read.
    _words: dict[str, str] = PrivateAttr(default_factory=dict)

    def exact(self, name: str) -> str | None:
        """The sheet key `name` is (an attribute, resource or skill id, any case) or is an
        alias of, or None: the names a dice frame keeps as typed."""
        stripped = name.strip()
        by_case = {
            key.lower(): key for key in [*self.attributes, *(r.id for r in self.resources), *self.skills]
        }
        if stripped.lower() in by_case:
            return by_case[stripped.lower()]
        return self.aliases.get(stripped) or self.aliases.get(stripped.lower())

    def canonical(self, name: str) -> str | None:
        """The sheet key `name` means, or None: an id or alias (`exact`), else a display
        name in either language as the table prints it ("Spot Hidden", "侦查", "spot
        hidden"), whatever its case and spacing."""
        return self.exact(name) or self._words.get(folded(name))

    def closest(self, name: str, locale: str, count: int = 3) -> list[str]:
        """The display names (in `locale`) of the keys closest to `name`, for a name the
        sheet does not know: names that hold it first, then names spelled like it."""
        typed = folded(name)
        if not typed:
            return []
        holding = [word for word in self._words if typed in word or (len(word) > 1 and word in typed)]
        alike = difflib.get_close_matches(typed, list(self._words), n=count * 3, cutoff=0.5)
        keys = list(dict.fromkeys(self._words[word] for word in [*holding, *alike]))
        return [self.skill_label(key, locale) for key in keys[:count]]

    @model_validator(mode="after")
    def _typed_words(self) -> Sheet:
        keys = [*self.attributes, *(r.id for r in self.resources), *self.skills]
        words: dict[str, str] = {}
        labels = {**{r.id: r.label for r in self.resources}, **self.labels}
        for key in keys:
            label = labels.get(key)
            for word in (label.en, label.zh) if label else ():
                if word:
                    words.setdefault(folded(word), key)
        words.update({folded(alias): key for alias, key in self.aliases.items()})
        words.update({folded(key): key for key in keys})
        self._words = words
        return self

    def _label_of(self, key: str | None) -> Label | Localized | None:
        if key is None:
            return None
        if key in self.labels:
            return self.labels[key]
        # Vitals and shown values already carry labels of their own.
        return next((entry.label for entry in [*self.resources, *self.shown] if entry.id == key), None)

    def knows_label(self, name: str) -> bool:
        """Whether `name` (an id or an alias) is something this sheet has a label for."""
        return self._label_of(self.canonical(name)) is not None

    def skill_label(self, skill_id: str, locale: str) -> str:
        """How a skill or characteristic reads in `locale`. `skill_id` may also be an
        alias (`侦查`); a name without a label reads as `readable` makes it."""
        label = self._label_of(self.canonical(skill_id))
        return label.pick(locale) if label else readable(skill_id)

    @model_validator(mode="after")
    def _shown_are_derived(self) -> Sheet:
        for entry in self.shown:
            if entry.id not in self.derived:
                raise ValueError(f"shown value {entry.id!r} has no formula under derived")
        return self

    @field_validator("labels")
    @classmethod
    def _labels_name_the_sheet(cls, labels: dict[str, Label], info: ValidationInfo) -> dict[str, Label]:
        # Attributes and skills come before labels, so they are already read (when valid).
        known = {*info.data.get("attributes", []), *info.data.get("skills", {})}
        for key in labels:
            if key not in known:
                raise ValueError(f"{key!r} is not a skill or attribute of this pack")
        return labels

    @field_validator("attributes")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not _KEY.match(name):
                raise ValueError(f"{name!r} is not a valid attribute name")
        if len(set(names)) != len(names):
            raise ValueError("an attribute is listed twice")
        return names


class Initiative(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roll: str
    add: str | None = None
    tiebreak: str | None = None


class Pack(BaseModel):
    """One rule system, as its pack file declares it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: Localized
    make_char: str | None = None
    # What a character's money is counted in (dollars for the 1920s, gold for D&D).
    currency: Localized | None = None
    default_die: str
    check: Check
    difficulties: dict[str, list[str]] = {}
    sheet: Sheet
    subsystems: list[str] = []
    initiative: Initiative | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not re.match(r"^[a-z][a-z0-9_-]{1,31}$", value):
            raise ValueError("must be 2-32 lower-case letters, digits, - or _")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Pack:
        resource_ids = {r.id for r in self.sheet.resources}
        known = set(self.sheet.attributes) | resource_ids | set(self.sheet.derived) | set(self.sheet.skills)
        for alias, target in self.sheet.aliases.items():
            if target not in known:
                raise ValueError(f"sheet.aliases.{alias}: {target!r} is neither an attribute nor a resource")
        for name in self.sheet.creation:
            if name not in set(self.sheet.attributes) | resource_ids:
                raise ValueError(f"sheet.creation.{name}: not an attribute or resource of this pack")
        if self.check.house_rules and self.check.default_house_rule not in self.check.house_rules:
            raise ValueError("check.default_house_rule must be one of check.house_rules")
        return self

    def difficulty_words(self) -> dict[str, str]:
        """Every word (en and zh) that names a difficulty, mapped to its level."""
        return {word.lower(): level for level, words in self.difficulties.items() for word in words}

    def skill_names(self) -> dict[str, dict[str, str]]:
        """Every name of a labelled skill or characteristic (ids and aliases, lower-cased)
        with how it reads in each language: what the browser table looks a check up in."""
        names = [*self.sheet.attributes, *self.sheet.skills, *(r.id for r in self.sheet.resources)]
        return {
            name.lower(): {locale: self.sheet.skill_label(name, locale) for locale in ("en", "zh")}
            for name in [*names, *self.sheet.aliases]
            if self.sheet.knows_label(name)
        }

    def system_entry(self) -> dict:
        """This pack's entry in `state.systems`."""
        entry = {"id": self.id}
        if self.make_char:
            entry["make_char"] = self.make_char
        return entry


def load_pack(path: Path) -> Pack:
    """Read and validate one pack file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path.name}: cannot be read ({exc})") from None
    return parse_pack(text, path.name)


def parse_pack(text: str, label: str = "pack") -> Pack:
    """Validate one pack document (YAML text); `label` names it in errors."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PackError(f"{label}: cannot be read as YAML ({exc})") from None
    if not isinstance(document, dict):
        raise PackError(f"{label}: a pack is a mapping of fields")
    try:
        return Pack.model_validate(document)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "pack"
        raise PackError(f"{label}: {where}: {problem['msg']}") from None


@dataclass(frozen=True)
class Catalog:
    """Every rule system this server discovered, and the packs it refused."""

    packs: dict[str, Pack]
    refused: dict[str, str]

    def systems(self) -> list[dict]:
        """`state.systems`: every discovered system with its make_char word."""
        return [pack.system_entry() for pack in self.packs.values()]

    def skill_label(self, name: str, locale: str, expr: str = "") -> str:
        """How a skill named on a dice frame reads in `locale`. A frame does not name
        its rule system, so the packs that roll its die (from `expr`) are asked first;
        a name no pack labels reads as `readable` makes it."""
        die = die_of(expr)
        ordered = sorted(self.packs.values(), key=lambda pack: pack.check.roll != die)
        for pack in ordered:
            if pack.sheet.knows_label(name):
                return pack.sheet.skill_label(name, locale)
        return readable(name)

    @cached_property
    def page_labels(self) -> list[dict]:
        """Each pack's display name, skill names and labels, for the browser table's
        page (worked out once: every page load carries them)."""
        return [
            {
                "id": pack.id,
                "name": {locale: pack.name.pick(locale) for locale in ("en", "zh")},
                "roll": pack.check.roll,
                "names": pack.skill_names(),
            }
            for pack in self.packs.values()
        ]


def pack_dirs() -> list[Path]:
    """Where packs are found: the built-ins, then the operator's packs directory."""
    return [BUILT_IN_DIR, Path(settings.TRPG_PACKS_DIR)]


@cache
def catalog() -> Catalog:
    """Discover the packs once per process (a refused pack is logged, not fatal)."""
    return discover(pack_dirs())


def discover(directories: list[Path]) -> Catalog:
    """Load every `*.yaml` pack in `directories`; the first pack of an id wins."""
    packs: dict[str, Pack] = {}
    refused: dict[str, str] = {}
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.yaml")):
            try:
                pack = load_pack(path)
            except PackError as exc:
                refused[path.name] = str(exc)
                log.warning("rule pack refused: %s", exc)
                continue
            if pack.id in packs:
                refused[path.name] = f"{path.name}: id {pack.id!r} is already taken"
                continue
            packs[pack.id] = pack
    return Catalog(packs=packs, refused=refused)
