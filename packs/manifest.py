"""The pack manifest (`pack.yaml`): what an author may write in it, what a build adds,
and the checks both pass before anything else of a pack is read (docs/packs.md,
"Writing a pack").

Manifest version 2 is the reference's: `contents` may list rule systems, skills,
panels, cards, lorebooks, prompt presets (`presets`), prep scripts (`prep`) and a
presentation kit (`presentation`); a card is a path or `{path, notes}`; the pictures a
panel shows, a web page panel's files and a presentation kit's pictures and sounds are
assets of the pack even when the top-level `assets` does not list them (the build adds
them). A built manifest of the reference's builder reads here too: its cards carry the
`kind` it detected, its assets `tags`, and its trust card is its own (this server
writes its own in its place, see `lwpack.open_pack`).
"""

from __future__ import annotations

import re
from typing import Any

from base.i18n import Refusal, _
from packs import declarations

MANIFEST = "pack.yaml"
MANIFEST_VERSION = 2
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_MEMBERS = 2048
MAX_MANIFEST_BYTES = 256 * 1024
MAX_PANELS_FILE_BYTES = 256 * 1024
MAX_RATIO = 100  # inflated / deflated, for members over RATIO_FLOOR bytes
RATIO_FLOOR = 64 * 1024
MAX_PATH = 512
MAX_LIST = 64
MAX_ASSETS = 512

PACK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
VERSION = re.compile(r"^\d{1,6}\.\d{1,6}\.\d{1,6}(?:[-+][0-9A-Za-z.-]{1,32})?$")
CONTENT_KINDS = ("rulepacks", "skills", "panels", "cards", "lorebooks", "presets", "prep", "presentation")
# `engine` (the reference's minimum versions) is accepted and not enforced.
AUTHORED = {
    "id",
    "version",
    "name",
    "description",
    "authors",
    "license",
    "engine",
    "contents",
    "assets",
    "variables",
}
# `card_notes` is where a build keeps the notes of `{path, notes}` card entries.
BUILT = AUTHORED | {"manifest_version", "files", "trust", "card_notes"}


class PackError(Refusal):
    """A pack the server will not build or install, with the problem named."""


def _refuse(text: str, **values: object) -> PackError:
    return PackError(text, **values)


def check_path(path: Any) -> str:
    """`path` if it names a file inside a pack (relative, forward slashes, no `..`, no
    control characters), else refused."""
    if not isinstance(path, str) or not path or len(path) > MAX_PATH:
        raise _refuse(_("The path {path} is not a file name inside the pack."), path=repr(path)[:120])
    parts = path.split("/")
    if (
        "\\" in path
        or any(ord(char) < 32 or char == "\x7f" for char in path)
        or path.startswith("/")
        or re.match(r"^[A-Za-z]:", path)
        or any(part in ("", ".", "..") or len(part) > 255 for part in parts)
    ):
        raise _refuse(_("The path {path} would leave the pack."), path=repr(path)[:120])
    return path


def _text(value: Any, field: str, limit: int = 2000) -> dict[str, str]:
    if isinstance(value, str) and value.strip():
        return {"en": value[:limit]}
    if (
        isinstance(value, dict)
        and value
        and set(value) <= {"en", "zh"}
        and all(isinstance(text, str) and text.strip() for text in value.values())
    ):
        return {locale: text[:limit] for locale, text in value.items()}
    raise _refuse(_("The manifest's {field} must be text, or {{en, zh}} texts."), field=field)


def _paths(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise _refuse(
            _("The manifest's {field} must list at most {limit} paths."), field=field, limit=MAX_LIST
        )
    paths = [check_path(path) for path in value]
    if len(set(paths)) != len(paths):
        raise _refuse(_("The manifest's {field} names a file twice."), field=field)
    return paths


def _listed(value: Any, field: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise _refuse(
            _("The manifest's {field} must list at most {limit} paths."), field=field, limit=MAX_LIST
        )
    return value


def _card_entry(entry: Any, *, built: bool) -> tuple[str, dict[str, str] | None]:
    """A `contents.cards` entry: a path, or `{path, notes}` (notes shown when the pack
    is installed). A pack the reference built also carries the `kind` its builder
    detected: accepted and not trusted (this server reads each card itself)."""
    if isinstance(entry, str):
        return check_path(entry), None
    allowed = {"path", "notes", "kind"} if built else {"path", "notes"}
    if not isinstance(entry, dict) or set(entry) - allowed or "path" not in entry:
        raise _refuse(_("A card entry is a path, or {{path, notes}}."))
    path = check_path(entry["path"])
    if built and entry.get("kind") not in (None, "character", "world"):
        raise _refuse(_("The card {path} has an unknown kind."), path=path)
    notes = entry.get("notes")
    return path, (_text(notes, f"notes of {path}") if notes is not None else None)


def _card_notes(value: Any) -> dict[str, dict[str, str]]:
    if not isinstance(value, dict) or len(value) > MAX_LIST:
        raise _refuse(_("The manifest's card_notes must map card paths to notes."))
    return {check_path(path): _text(notes, f"notes of {path}") for path, notes in value.items()}


def check_manifest(manifest: Any, *, built: bool) -> dict:
    """The manifest, normalized (names as {en, zh} maps), or refused naming the field.
    `built`: the inventory and trust card must be there (a pack), not (a source)."""
    if not isinstance(manifest, dict):
        raise _refuse(_("The manifest must be a mapping of fields."))
    allowed = BUILT if built else AUTHORED
    unknown = set(manifest) - allowed
    if unknown:
        raise _refuse(
            _("The manifest has unknown fields: {fields}."), fields=", ".join(sorted(map(str, unknown)))[:200]
        )
    if built and manifest.get("manifest_version") != MANIFEST_VERSION:
        raise _refuse(
            _("This server reads manifest version {expected}, not {found}."),
            expected=MANIFEST_VERSION,
            found=repr(manifest.get("manifest_version"))[:20],
        )
    pack_id = manifest.get("id")
    if not isinstance(pack_id, str) or not PACK_ID.match(pack_id):
        raise _refuse(
            _("The pack id {id} must be lowercase letters, digits and dashes (at most 64)."),
            id=repr(pack_id)[:80],
        )
    version = manifest.get("version")
    if not isinstance(version, str) or not VERSION.match(version):
        raise _refuse(_("The version {version} must look like 1.2.3."), version=repr(version)[:40])
    license_ = manifest.get("license")
    if not isinstance(license_, str) or not license_.strip() or len(license_) > 200:
        raise _refuse(_("The manifest must name the pack's license."))
    authors = manifest.get("authors", [])
    if (
        not isinstance(authors, list)
        or len(authors) > 32
        or not all(isinstance(a, str) and 0 < len(a) <= 200 for a in authors)
    ):
        raise _refuse(_("The manifest's authors must be a list of names."))
    contents = manifest.get("contents") or {}
    if not isinstance(contents, dict) or set(contents) - set(CONTENT_KINDS):
        raise _refuse(_("The manifest's contents may hold: {kinds}."), kinds=", ".join(CONTENT_KINDS))
    card_entries = [
        _card_entry(entry, built=built) for entry in _listed(contents.get("cards"), "contents.cards")
    ]
    card_notes = {path: notes for path, notes in card_entries if notes}
    if built and manifest.get("card_notes"):
        card_notes.update(_card_notes(manifest["card_notes"]))
    contents = {**contents, "cards": [path for path, _notes in card_entries]}
    if len(contents.get("presentation") or []) > 1:
        raise _refuse(_("A pack has at most one presentation kit."))
    assets = manifest.get("assets", [])
    if not isinstance(assets, list) or len(assets) > MAX_ASSETS:
        raise _refuse(_("The manifest's assets must list at most {limit} files."), limit=MAX_ASSETS)
    checked_assets = [_asset(asset, built=built) for asset in assets]
    if len({asset["path"] for asset in checked_assets}) != len(checked_assets):
        raise _refuse(_("The manifest's assets name a file twice."))
    declared = manifest.get("variables", [])
    if not isinstance(declared, list) or len(declared) > declarations.MAX_DECLARED:
        raise _refuse(_("The manifest declares at most {limit} variables."), limit=declarations.MAX_DECLARED)
    checked_variables = [declarations.as_spec(declarations.check_declaration(spec)) for spec in declared]
    if len({spec["id"] for spec in checked_variables}) != len(checked_variables):
        raise _refuse(_("The manifest declares a variable twice."))
    normalized = {
        "id": pack_id,
        "version": version,
        "name": _text(manifest.get("name"), "name", 200),
        "description": _text(manifest.get("description"), "description"),
        "authors": list(authors),
        "license": license_.strip(),
        "contents": {
            kind: _paths(contents[kind], f"contents.{kind}") for kind in CONTENT_KINDS if contents.get(kind)
        },
        "assets": checked_assets,
        "variables": checked_variables,
    }
    if card_notes:
        normalized["card_notes"] = {
            path: card_notes[path] for path in normalized["contents"]["cards"] if path in card_notes
        }
    if isinstance(manifest.get("engine"), dict):
        normalized["engine"] = {
            str(key)[:40]: str(value)[:40] for key, value in list(manifest["engine"].items())[:8]
        }
    if built:
        normalized.update(manifest_version=MANIFEST_VERSION, files=_inventory(manifest.get("files")))
        if not isinstance(manifest.get("trust"), dict):
            raise _refuse(_("The manifest has no trust card."))
        normalized["trust"] = manifest["trust"]
    return normalized


def _asset(asset: Any, *, built: bool) -> dict:
    if isinstance(asset, str):
        asset = {"path": asset}
    if not isinstance(asset, dict) or set(asset) - {
        "path",
        "sha256",
        "mime",
        "size",
        "title",
        "license",
        "tags",
    }:
        raise _refuse(_("An asset is {{path, title?, license?, tags?}}."))
    checked = {"path": check_path(asset.get("path"))}
    for field in ("title", "license"):
        if field in asset:
            if not isinstance(asset[field], str) or len(asset[field]) > 200:
                raise _refuse(_("An asset's {field} must be short text."), field=field)
            checked[field] = asset[field]
    tags = asset.get("tags")
    if tags:  # the reference's asset tags: kept, not used here
        if (
            not isinstance(tags, list)
            or len(tags) > 16
            or not all(isinstance(t, str) and len(t) <= 64 for t in tags)
        ):
            raise _refuse(_("An asset's tags must be a short list of words."))
        checked["tags"] = list(tags)
    if built:
        for field in ("sha256", "mime", "size"):
            if field not in asset:
                raise _refuse(_("The asset {path} has no {field}."), path=checked["path"], field=field)
            checked[field] = asset[field]
    elif "sha256" in asset:
        checked["sha256"] = asset["sha256"]  # an author may pin it; the build checks it
    return checked


def _inventory(files: Any) -> dict[str, dict]:
    if not isinstance(files, list) or len(files) > MAX_MEMBERS:
        raise _refuse(_("The manifest's file inventory is missing or too long."))
    inventory: dict[str, dict] = {}
    for record in files:
        if not isinstance(record, dict) or set(record) != {"path", "sha256", "size"}:
            raise _refuse(_("A file record is {{path, sha256, size}}."))
        path = check_path(record["path"])
        digest, size = record["sha256"], record["size"]
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise _refuse(_("The file {path} has no valid sha256."), path=path)
        if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_FILE_BYTES:
            raise _refuse(_("The file {path} is larger than {limit} bytes."), path=path, limit=MAX_FILE_BYTES)
        if path in inventory or path == MANIFEST:
            raise _refuse(_("The inventory names {path} twice."), path=path)
        inventory[path] = {"sha256": digest, "size": size}
    if sum(record["size"] for record in inventory.values()) > MAX_TOTAL_BYTES:
        raise _refuse(_("The pack unpacks to more than {limit} bytes."), limit=MAX_TOTAL_BYTES)
    return inventory
