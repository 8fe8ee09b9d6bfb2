"""Modules a keeper brings into a room: a file from the data directory's `modules/`
folder (`.module <file>`) or pasted text (`.module import <text>`).

A file is named by its path inside the folder: the path may not hold `..` or start at
the root, and what it resolves to (links followed) must sit inside the folder. A model,
when one is configured, drafts the title, the intro for the players, the keeper's
truth and the NPCs from the text; without one (or when its draft does not validate)
the text's own headings are read: the first heading is the title, the text under it
(or under an "Intro" heading) is what the players may know, a "Truth" or "Secret"
heading is the keeper's alone, and an "NPCs" heading lists the cast. A section with
any other heading is kept for the keeper too: an imported text never tells the players
more than it marks as theirs.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from django.conf import settings
from django.db import transaction
from pydantic import ValidationError

from base.i18n import Refusal, _
from keeper import lore, variables
from keeper.forge import ModuleDocument
from keeper.models import LoreEntry, Npc, Story

SUFFIXES = (".md", ".markdown", ".txt", ".yaml", ".yml")
MAX_FILE_BYTES = 256 * 1024

# Section headings, lower-cased, in both languages.
INTRO_HEADINGS = {"intro", "introduction", "players", "for the players", "background", "简介", "背景", "开场"}
TRUTH_HEADINGS = {
    "truth",
    "secret",
    "secrets",
    "keeper",
    "keeper only",
    "the truth",
    "真相",
    "秘密",
    "守秘人",
}
NPC_HEADINGS = {"npcs", "npc", "characters", "cast", "人物", "角色", "非玩家角色"}
SCENE_HEADINGS = {"scene", "opening scene", "start", "场景", "开场场景"}
# A secret marked inside a line (`- Mara: the innkeeper. Secret: she hides Silas`,
# `**Secret:**`, a bracketed `秘密` in Chinese): all after the marker is the keeper's.
_INLINE_SECRET = re.compile(r"(?:^|(?<=[\s.;,(，。；（]))\**(?:secret|秘密)\**\s*[:：]\**\s*", re.I)
_LIST_NPC = re.compile(r"^\s*[-*]\s*(?:\*\*)?(?P<name>[^:*：]+?)(?:\*\*)?\s*[:：]\s*(?P<persona>.*)$")


class ModuleError(Refusal):
    """A module that cannot be imported as asked; the message says why."""


def modules_dir() -> Path:
    """The folder `.module <file>` reads from."""
    return Path(settings.DATA_DIR) / "modules"


def available() -> list[str]:
    """The module files a keeper can name (paths inside the modules folder), sorted."""
    folder = modules_dir()
    if not folder.is_dir():
        return []
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in SUFFIXES and not _hidden(p.relative_to(folder).parts)
    )


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(part.startswith(".") for part in parts)


def _refused(name: str) -> ModuleError:
    return ModuleError(
        _("Give a file in the modules folder (a name or a path inside it): {name} is refused."),
        name=name[:80],
    )


def module_file(name: str) -> Path:
    """The file `name` means in the modules folder: a name or a path inside the folder
    (`fogbell.md`, `coc/fogbell`, and `modules/fogbell.md` as the terminal client writes
    it); its suffix may be left out.

    Raises `ModuleError` for a path that leads out of the folder (`..`, an absolute
    path, a link), and for a file that is not there, is too large or is not text.
    """
    name = name.strip()
    parts = tuple(part for part in name.replace("\\", "/").split("/") if part not in ("", "."))
    if not parts or name.startswith(("/", "\\")) or ".." in parts or _hidden(parts) or "\0" in name:
        raise _refused(name)
    folder = modules_dir().resolve()
    tries = [parts, parts[1:]] if parts[0] == "modules" and len(parts) > 1 else [parts]
    for inside in tries:
        last = inside[-1]
        endings = [last] if Path(last).suffix.lower() in SUFFIXES else [last + s for s in SUFFIXES]
        for ending in endings:
            path = folder.joinpath(*inside[:-1], ending).resolve()
            if not path.is_relative_to(folder):  # a link that leads out of the folder
                raise _refused(name)
            if path.is_file():
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise ModuleError(_("{name} is larger than 256 KiB."), name=ending)
                return path
    files = ", ".join(available()[:40]) or "-"
    raise ModuleError(
        _("There is no module file called {name}. Files in the modules folder: {files}"),
        name=name,
        files=files,
    )


def read_text(path: Path) -> str:
    """A module file's text (UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ModuleError(_("{name} is not a UTF-8 text file."), name=path.name) from None


def slug(name: str) -> str:
    """A module id from a file name or title."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48] or "imported"


def from_yaml(text: str, module_id: str) -> ModuleDocument:
    """A module written as YAML (what `admin_generate` saves, or a model's draft)."""
    try:
        data = yaml.safe_load(text)
        if not isinstance(data, dict):
            raise ModuleError(_("The module is not a YAML mapping."))
        return ModuleDocument.model_validate({**data, "id": data.get("id") or module_id})
    except yaml.YAMLError:
        raise ModuleError(_("The module's YAML cannot be read.")) from None
    except ValidationError as invalid:
        first = invalid.errors()[0]
        raise ModuleError(
            _("The module's {field} is not valid: {why}"),
            field=".".join(str(p) for p in first["loc"]),
            why=first["msg"],
        ) from None


def from_headings(text: str, module_id: str) -> ModuleDocument:
    """A module read off its text's headings (see the module docstring)."""
    title, sections = _sections(text)
    intro, truth, scene, npcs = [], [], "", []
    for heading, body in sections:
        word = heading.strip().strip("*#: ").lower()
        if heading == "" or word in INTRO_HEADINGS:
            intro.append(body)
        elif word in TRUTH_HEADINGS:
            truth.append(body)
        elif word in SCENE_HEADINGS:
            scene = next((line.strip() for line in body.splitlines() if line.strip()), "")
        elif word in NPC_HEADINGS:
            npcs += _npcs(body)
        else:
            truth.append(f"{heading.strip()}\n{body}".strip())
    document = {
        "id": module_id,
        "title": title[:200] or module_id,
        "intro": "\n\n".join(p for p in intro if p)[:4000] or title[:200] or module_id,
        "truth": "\n\n".join(p for p in truth if p)[:4000],
        "scene": scene[:200],
        "npcs": npcs[:20],
    }
    return ModuleDocument.model_validate(document)


def _sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The title (the first heading, or the first line) and the (heading, body) pairs
    under second-level headings; text before any of them has the heading ""."""
    lines = text.replace("\r\n", "\n").split("\n")
    title = ""
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines:
        title = lines.pop(0).strip().lstrip("#").strip()
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in lines:
        heading = re.match(r"^#{1,2}\s+(?P<h>.+?)\s*#*\s*$", line)
        if heading:
            sections.append((heading.group("h"), []))
        else:
            sections[-1][1].append(line)
    return title, [(h, "\n".join(body).strip()) for h, body in sections]


def split_secret(text: str) -> tuple[str, str]:
    """(what players may hear, the keeper's secret) of a persona that marks a secret
    inside it; ("text", "") when it marks none."""
    marker = _INLINE_SECRET.search(text)
    if marker is None:
        return text.strip(), ""
    secret = text[marker.end() :].strip()
    if text[: marker.start()].rstrip().endswith(("(", "（")):  # "(secret: …)": drop the brackets
        secret = secret.rstrip(")）").strip()
    return text[: marker.start()].rstrip(" (（;,；，").strip(), secret


def _npcs(body: str) -> list[dict]:
    """NPCs under an NPC heading: `### Name` blocks, or `- Name: persona` items; a line
    `Secret: ...`, or a `Secret:` inside a line, is the NPC's secret."""
    found: list[dict] = []
    for line in body.splitlines():
        block = re.match(r"^#{3,}\s+(?P<name>.+?)\s*#*\s*$", line)
        item = _LIST_NPC.match(line)
        if block or item:
            name = (block or item).group("name").strip()[:64]
            found.append({"name": name, "persona": "", "secret": ""})
            line = item.group("persona") if item else ""
        if not found or not line.strip():
            continue
        heard, secret = split_secret(line)
        npc = found[-1]
        npc["persona"] = (npc["persona"] + " " + heard).strip()[:2000]
        npc["secret"] = (npc["secret"] + " " + secret).strip()[:2000]
    return found


def install(room_id: int, document: ModuleDocument) -> None:
    """Make the module the room's: its title, intro, truth and opening scene replace the
    current module's, its NPCs join the cast (one of the same name is updated) and its
    variables are declared (one already there keeps its value), its lore replaces what
    an earlier import of it brought."""
    with transaction.atomic():
        story = Story.of(room_id)
        story.module_id, story.module_title = document.id, document.title
        story.module_intro, story.module_truth = document.intro, document.truth
        if document.scene:
            story.scene_name = document.scene
        story.save()
        for npc in document.npcs:
            # A model's draft may leave a secret marked inside the persona, as a text can.
            persona, marked = split_secret(npc.persona)
            secret = " ".join(part for part in (npc.secret, marked) if part)
            Npc.objects.update_or_create(
                room_id=room_id, name=npc.name, defaults={"persona": persona, "secret": secret}
            )
        variables.declare(room_id, document.variables, source=f"module:{document.id}")
        for visibility in (LoreEntry.Visibility.EVERYONE, LoreEntry.Visibility.KEEPERS):
            secret = visibility == LoreEntry.Visibility.KEEPERS
            lore.add_entries(
                room_id,
                (
                    {
                        "title": entry.title,
                        "keywords": entry.keywords,
                        "content": entry.content,
                        "constant": entry.constant,
                    }
                    for entry in document.lore
                    if entry.secret == secret
                ),
                source=f"module:{document.id}" + (" (secret)" if secret else ""),
                visibility=visibility,
            )
