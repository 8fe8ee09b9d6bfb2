"""`admin_generate`: the model drafts a skill, a
rule pack or a module; the same validators that load those documents check the
draft; only a valid one is written (atomically) and installed.

A module lands in the caller's room only when that room has no module yet; `detail`
says which happened, since for a module `ok` only means a valid document was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.conf import settings
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from keeper import skill_catalog
from keeper.llm import subscribed
from keeper.llm.config import LlmConfig
from keeper.models import Npc, Story
from keeper.rules import packs
from packs import declarations

FENCE = re.compile(r"^```[a-zA-Z]*\n(?P<body>.*?)\n```\s*$", re.S)

BRIEFS = {
    "skill": """Write a Keeper skill for an AI game master of tabletop role-playing games: a short \
markdown document that starts with YAML frontmatter between --- lines with the fields name, \
description, name-zh, description-zh and content_rating (general, teen or mature), followed by \
at most 300 words of instructions for the game master. Answer with the document only.""",
    "rule": """Write a rule pack (YAML) for a tabletop role-playing system, with these fields: id \
(2-32 lower-case letters), name {en, zh}, make_char, default_die, check {roll, target, ladder, \
house_rules, default_house_rule}, difficulties, sheet {attributes, resources [{id, label {en, zh}, \
max}], derived, creation, starting, skills, aliases}. Answer with the YAML only.""",
    "module": """Write a short adventure module (YAML) for a tabletop role-playing game with the \
fields: id (lower-case letters, digits and dashes), title, intro (what the players may know at \
the start), truth (the keeper's secret), scene (where it opens), and npcs: a list of {name, \
persona, secret}. Answer with the YAML only.""",
    "module_import": """Read the adventure text the user gives and turn it into a module (YAML) for a \
tabletop role-playing game with the fields: title, intro (only what the players may know at the \
start), truth (what is really going on: the keeper's secret), scene (where it opens) and npcs: a \
list of {name, persona (how they look and talk), secret (what only they know)}. Keep the text's \
own language. Answer with the YAML only.""",
}
# How much of the user's text each kind of request carries.
LIMITS = {"module_import": 60000}


@dataclass(frozen=True)
class Generated:
    """The `admin_generated` outcome."""

    ok: bool
    id: str = ""
    name: str = ""
    error: str = ""
    detail: str = ""


class _Npc(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    persona: str = Field(default="", max_length=2000)
    secret: str = Field(default="", max_length=2000)


class _Lore(BaseModel):
    """A lore entry of a module: a fact of its world, for everyone or the keepers."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200)
    keywords: list[str] = Field(default_factory=list, max_length=16)
    content: str = Field(min_length=1, max_length=4000)
    secret: bool = False
    constant: bool = False


class ModuleDocument(BaseModel):
    """A module as `admin_generate` writes it (and `install_module` reads it)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    title: str = Field(min_length=1, max_length=200)
    intro: str = Field(min_length=1, max_length=4000)
    truth: str = Field(default="", max_length=4000)
    scene: str = Field(default="", max_length=200)
    npcs: list[_Npc] = Field(default_factory=list, max_length=20)
    # Module variables, declared as a pack declares them (packs/declarations.py).
    variables: list[dict] = Field(default_factory=list, max_length=declarations.MAX_DECLARED)
    lore: list[_Lore] = Field(default_factory=list, max_length=200)

    @field_validator("variables")
    @classmethod
    def _declared(cls, specs: list[dict]) -> list[dict]:
        try:
            return [declarations.as_spec(declarations.check_declaration(spec)) for spec in specs]
        except declarations.VariableError as refused:
            raise ValueError(str(refused)) from None


def messages_for(kind: str, description: str) -> list[dict]:
    """The request the model gets."""
    limit = LIMITS.get(kind, 4000)
    return [{"role": "system", "content": BRIEFS[kind]}, {"role": "user", "content": description[:limit]}]


def draft(config: LlmConfig, kind: str, description: str) -> str:
    """Ask the model for a document (blocking: call it from a worker thread)."""
    if config.subscription:  # the room's own sign-in (keeper/llm/subscribed.py)
        text = subscribed.draft_text(config, messages_for(kind, description))
    else:
        # Through the endpoint policy: a room's endpoint is checked at every connection.
        from keeper.llm.guarded_http import openai_client  # with the first model call

        client = openai_client(
            config.base_url,
            config.api_key,
            operator=config.operator_endpoint,
            timeout=settings.TRPG_LLM_TIMEOUT,
            max_retries=settings.TRPG_LLM_RETRIES,
        )
        response = client.chat.completions.create(
            model=config.chat_model, messages=messages_for(kind, description)
        )
        text = (response.choices[0].message.content or "") if response.choices else ""
    fenced = FENCE.match(text.strip())
    return (fenced.group("body") if fenced else text).strip() + "\n"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48] or "skill"


def _write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{name}.tmp"
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(folder / name)


def install(kind: str, text: str, room_id: int) -> Generated:
    """Validate a drafted document and install it (runs in a worker thread)."""
    if kind == "skill":
        return _install_skill(text)
    if kind == "rule":
        return _install_rule(text)
    return _install_module(text, room_id)


def _install_skill(text: str) -> Generated:
    try:
        probe = skill_catalog.parse_skill("draft", text)
    except skill_catalog.SkillError as exc:
        return Generated(False, error=str(exc))
    skill_id, taken = _slug(probe.name), set(skill_catalog.skills())
    base, n = skill_id, 2
    while skill_id in taken:
        skill_id, n = f"{base}-{n}", n + 1
    skill = skill_catalog.install_skill(skill_id, text)
    return Generated(True, skill.id, skill.name)


def _install_rule(text: str) -> Generated:
    try:
        pack = packs.parse_pack(text, "draft")
    except packs.PackError as exc:
        return Generated(False, error=str(exc))
    if pack.id in packs.catalog().packs:
        return Generated(False, error=f"a rule system called {pack.id!r} already exists")
    _write(Path(settings.TRPG_PACKS_DIR), f"{pack.id}.yaml", text)
    packs.catalog.cache_clear()
    return Generated(True, pack.id, pack.name.en)


def _install_module(text: str, room_id: int) -> Generated:
    try:
        document = ModuleDocument.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        return Generated(False, error=f"module: {str(exc).splitlines()[0]}")
    _write(Path(settings.DATA_DIR) / "modules", f"{document.id}.yaml", text)
    with transaction.atomic():
        story = Story.of(room_id)
        if story.module_title:
            detail = f"not installed: this room already plays {story.module_title!r} (.reset all first)"
            return Generated(True, document.id, document.title, detail=detail)
        story.module_id, story.module_title = document.id, document.title
        story.module_intro, story.module_truth = document.intro, document.truth
        story.scene_name = document.scene
        story.save()
        for npc in document.npcs:
            Npc.objects.update_or_create(
                room_id=room_id, name=npc.name, defaults={"persona": npc.persona, "secret": npc.secret}
            )
    return Generated(
        True, document.id, document.title, detail=f"installed into this room with {len(document.npcs)} NPCs"
    )
