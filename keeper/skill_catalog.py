"""Keeper skills: markdown files that teach the AI Keeper a style or a technique.

A skill is `<id>.md` with YAML frontmatter (`name`, `description`, `name-zh`,
`description-zh`, `content_rating`) and a body that joins the Keeper's brief in the
rooms that enable it. The shipped skills live beside this module; the operator adds
more in `TRPG_SKILLS_DIR`. A file that does not validate is refused (and logged),
never half-loaded.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from keeper.models import TableSettings

log = logging.getLogger(__name__)

BUILT_IN_DIR = Path(__file__).resolve().parent / "skills"
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_FRONTMATTER = re.compile(r"\A---\n(?P<meta>.*?)\n---\n(?P<body>.*)\Z", re.S)
MAX_BODY_CHARS = 6000


class SkillError(ValueError):
    """A skill file that cannot be used, and why."""


class _Meta(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(min_length=1, max_length=80)
    description: str = Field(min_length=1, max_length=300)
    name_zh: str = Field(default="", max_length=80, alias="name-zh")
    description_zh: str = Field(default="", max_length=300, alias="description-zh")
    content_rating: Literal["general", "teen", "mature"] = "general"


@dataclass(frozen=True)
class Skill:
    id: str
    name: str
    description: str
    name_zh: str
    description_zh: str
    content_rating: str
    body: str

    def entry(self, locale: str, enabled: bool) -> dict:
        """This skill in `admin_skills`, in the caller's language."""
        zh = locale == "zh"
        return {
            "id": self.id,
            "name": (self.name_zh if zh and self.name_zh else self.name),
            "description": (self.description_zh if zh and self.description_zh else self.description),
            "content_rating": self.content_rating,
            "enabled": enabled,
        }


def parse_skill(skill_id: str, text: str) -> Skill:
    """Validate one skill document."""
    if not _ID.match(skill_id):
        raise SkillError(f"{skill_id!r}: a skill id is lowercase letters, digits and dashes")
    match = _FRONTMATTER.match(text.replace("\r\n", "\n"))
    if match is None:
        raise SkillError(f"{skill_id}: no frontmatter (a skill starts with ---, its fields, then ---)")
    try:
        meta = _Meta.model_validate(yaml.safe_load(match.group("meta")) or {})
    except (yaml.YAMLError, ValidationError) as exc:
        raise SkillError(f"{skill_id}: {exc.__class__.__name__}: {str(exc).splitlines()[0]}") from None
    body = match.group("body").strip()
    if not body or len(body) > MAX_BODY_CHARS:
        raise SkillError(f"{skill_id}: the body must hold 1 to {MAX_BODY_CHARS} characters")
    return Skill(
        skill_id, meta.name, meta.description, meta.name_zh, meta.description_zh, meta.content_rating, body
    )


def skill_dirs() -> list[Path]:
    """The shipped skills, then the operator's."""
    return [BUILT_IN_DIR, Path(settings.TRPG_SKILLS_DIR)]


@cache
def skills() -> dict[str, Skill]:
    """Every usable skill, discovered once per process (the first of an id wins)."""
    found: dict[str, Skill] = {}
    for directory in skill_dirs():
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            try:
                skill = parse_skill(path.stem, path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, SkillError) as exc:
                log.warning("skill refused: %s", exc)
                continue
            found.setdefault(skill.id, skill)
    return found


def install_skill(skill_id: str, text: str) -> Skill:
    """Validate and write a new skill into the operator's directory, then rediscover."""
    skill = parse_skill(skill_id, text)
    folder = Path(settings.TRPG_SKILLS_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{skill_id}.md.tmp"
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(folder / f"{skill_id}.md")
    skills.cache_clear()
    return skill


def enabled_in(room_id: int) -> list[Skill]:
    """The skills a room enabled that this server still has."""
    known = skills()
    return [known[i] for i in TableSettings.of(room_id).skills if i in known]


def set_enabled(room_id: int, skill_id: str, on: bool) -> None:
    """Enable or disable a skill for one room. An unknown id is a `KeyError`."""
    if skill_id not in skills():
        raise KeyError(skill_id)
    table = TableSettings.of(room_id)
    chosen = [i for i in table.skills if i != skill_id]
    table.skills = [*chosen, skill_id] if on else chosen
    table.save(update_fields=["skills"])


def listing(room_id: int, locale: str) -> list[dict]:
    """Every skill with `enabled` for this room, as `admin_skills` lists them."""
    enabled = set(TableSettings.of(room_id).skills)
    return [skill.entry(locale, skill.id in enabled) for skill in skills().values()]
