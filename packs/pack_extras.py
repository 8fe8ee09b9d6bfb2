"""The parts of a manifest v2 pack this server checks and keeps but does not act on:
prompt presets (`contents.presets`), prep scripts (`contents.prep`) and the
presentation kit (`contents.presentation`). Each is checked as the reference's builder
checks it, so a pack that builds here builds there too; what the server does with them
is said in docs/packs.md ("Writing a pack") and on the trust card.

- A prompt preset is a SillyTavern completion preset: a `.json` object with a
  non-empty `prompts` list. Two presets whose file names make the same id are refused.
- A prep script is a `.js` file of UTF-8 text, at most `MAX_PREP_CHARS` characters.
  Nothing here runs it.
- The presentation kit (`version: 2`) names the pictures (`subjects[].ref`) and the
  sounds (`audio[].asset`) of the module: those files are assets of the pack, added by
  the build when the top-level `assets` does not list them, and must be pictures and
  sounds.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any

from base.i18n import _
from packs import safe_yaml
from packs.manifest import PackError, check_path

MAX_PRESET_BYTES = 2 * 1024 * 1024
MAX_PRESET_PROMPTS = 512
MAX_PREP_CHARS = 20_000
MAX_KIT_BYTES = 128 * 1024
KIT_VERSION = 2
SUBJECT_KINDS = ("npc", "location", "item")
AUDIO_LAYERS = ("bgm", "ambience", "sfx")
KIT_TEMPLATES = ("image", "title_card", "letter", "clipping", "text")
AUDIO_MIMES = ("audio/mpeg", "audio/ogg", "audio/wav", "audio/flac", "audio/mp4", "audio/aac")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def preset_id(path: str) -> str:
    """The id a preset file installs under: its file name's stem, made a slug."""
    stem = PurePosixPath(path).name.rsplit(".", 1)[0]
    return re.sub(r"[^a-z0-9_-]+", "-", stem.lower()).strip("-")[:64]


def check_presets(paths: list[str], files: dict[str, bytes]) -> list[str]:
    """The ids of the presets at `paths`, each checked; refused naming the file."""
    ids: list[str] = []
    for path in paths:
        data = files[path]
        if not path.lower().endswith(".json"):
            raise PackError(_("The preset {path} must be a .json file."), path=path)
        if len(data) > MAX_PRESET_BYTES:
            raise PackError(_("{name} is larger than {limit} bytes."), name=path, limit=MAX_PRESET_BYTES)
        try:
            document = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise PackError(_("The preset {path} is not JSON."), path=path) from None
        prompts = document.get("prompts") if isinstance(document, dict) else None
        if not isinstance(prompts, list) or not 0 < len(prompts) <= MAX_PRESET_PROMPTS:
            raise PackError(
                _("The preset {path} is not a SillyTavern completion preset (it needs a prompts list)."),
                path=path,
            )
        found = preset_id(path)
        if not found or found in ids:
            raise PackError(_("The preset {path} has the same id as another preset of the pack."), path=path)
        ids.append(found)
    return ids


def check_prep(paths: list[str], files: dict[str, bytes]) -> None:
    """Refused unless every prep script is a `.js` file of UTF-8 text within the cap."""
    for path in paths:
        if not path.lower().endswith(".js"):
            raise PackError(_("The prep script {path} must be a .js file."), path=path)
        try:
            text = files[path].decode("utf-8")
        except UnicodeDecodeError:
            raise PackError(_("{name} is not UTF-8 text."), name=path) from None
        if len(text) > MAX_PREP_CHARS:
            raise PackError(
                _("The prep script {path} is longer than {limit} characters."),
                path=path,
                limit=MAX_PREP_CHARS,
            )


def _kit_error(path: str, where: str) -> PackError:
    return PackError(_("The presentation kit {path}: {where} is not valid."), path=path, where=where)


def _localized(value: Any) -> bool:
    if isinstance(value, str):
        return 0 < len(value.strip()) <= 400
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= {"en", "zh"}
        and all(isinstance(text, str) and 0 < len(text.strip()) <= 400 for text in value.values())
    )


def _keys(value: Any, required: set[str], optional: set[str]) -> bool:
    return isinstance(value, dict) and required <= set(value) <= required | optional


def read_kit(path: str, data: bytes) -> dict:
    """The presentation kit in `data`: `{generation, subjects: [{id, kind, ref}],
    audio: [{id, layer, asset, title}]}`, checked; refused naming the field."""
    kit = safe_yaml.load(data, name=path, limit=MAX_KIT_BYTES, refusal=PackError)
    if not _keys(kit, {"version"}, {"generation", "templates", "style", "subjects", "audio"}):
        raise _kit_error(path, "the kit")
    if kit["version"] != KIT_VERSION:
        raise _kit_error(path, "version")
    if kit.get("generation", "allow") not in ("allow", "pack_only"):
        raise _kit_error(path, "generation")
    templates = kit.get("templates") or []
    if not isinstance(templates, list) or not set(templates) <= set(KIT_TEMPLATES):
        raise _kit_error(path, "templates")
    style = kit.get("style") or {}
    if not _keys(style, set(), {"keywords", "banned", "palette"}):
        raise _kit_error(path, "style")
    if style.get("keywords") and not _localized(style["keywords"]):
        raise _kit_error(path, "style.keywords")
    for field, limit in (("banned", 24), ("palette", 8)):
        items = style.get(field) or []
        if not isinstance(items, list) or len(items) > limit or not all(_localized(item) for item in items):
            raise _kit_error(path, f"style.{field}")
    subjects, cues = kit.get("subjects") or [], kit.get("audio") or []
    if not isinstance(subjects, list) or len(subjects) > 64:
        raise _kit_error(path, "subjects")
    if not isinstance(cues, list) or len(cues) > 32:
        raise _kit_error(path, "audio")
    read_subjects, read_cues = [], []
    for n, subject in enumerate(subjects):
        where = f"subjects[{n}]"
        if (
            not _keys(subject, {"id", "kind", "name"}, {"ref", "prompt"})
            or not _SLUG.match(str(subject["id"]))
            or subject["kind"] not in SUBJECT_KINDS
            or not _localized(subject["name"])
            or not isinstance(subject.get("prompt", ""), str)
            or len(subject.get("prompt", "")) > 1000
        ):
            raise _kit_error(path, where)
        ref = check_path(subject["ref"]) if subject.get("ref") else ""
        read_subjects.append({"id": subject["id"], "kind": subject["kind"], "ref": ref})
    for n, cue in enumerate(cues):
        where = f"audio[{n}]"
        if (
            not _keys(cue, {"id", "layer", "asset"}, {"title"})
            or not _SLUG.match(str(cue["id"]))
            or cue["layer"] not in AUDIO_LAYERS
            or not isinstance(cue.get("title", ""), str)
            or len(cue.get("title", "")) > 400
        ):
            raise _kit_error(path, where)
        read_cues.append(
            {
                "id": cue["id"],
                "layer": cue["layer"],
                "asset": check_path(cue["asset"]),
                "title": cue.get("title", ""),
            }
        )
    for field, items in (("subjects", read_subjects), ("audio", read_cues)):
        if len({item["id"] for item in items}) != len(items):
            raise _kit_error(path, f"{field} (an id twice)")
    return {"generation": kit.get("generation", "allow"), "subjects": read_subjects, "audio": read_cues}


def kit_files(kit: dict) -> list[str]:
    """The pack files a kit names: its pictures, then its sounds."""
    found: list[str] = []
    for path in [subject["ref"] for subject in kit["subjects"]] + [cue["asset"] for cue in kit["audio"]]:
        if path and path not in found:
            found.append(path)
    return found
