"""The `.lwpack` content pack: building one from a folder, and reading one back with
everything checked before anything is kept.

A pack is a zip with `pack.yaml` at its root. The author writes the manifest's
description (docs/packs.md); the build adds what only a machine should write: the
manifest version, every file's sha256 and size (`files`), each asset's digest, type
and size, and the trust card (`trust`: what the pack contains and may do). Reading
(`open_pack`) refuses, naming the problem: a manifest that does not parse or
validate, a member missing from the inventory or not matching its digest, a path that
would leave the pack, a symlink, a zip bomb (an archive, a file or a total over its
cap, or a file that inflates more than `MAX_RATIO` times), and panels the build would
refuse. Nothing is read past a cap: a member stops being inflated one byte after the
size its inventory declares.
"""

from __future__ import annotations

import hashlib
import io
import mimetypes
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from base.i18n import Refusal, _
from packs import cards as card_files
from packs import declarations, safe_yaml
from packs import panels as panel_rules

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
CONTENT_KINDS = ("rulepacks", "skills", "panels", "cards", "lorebooks")
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
BUILT = AUTHORED | {"manifest_version", "files", "trust"}
ASSET_MIMES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".wav": "audio/wav",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".html": "text/html",
    ".htm": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
}


class PackError(Refusal):
    """A pack the server will not build or install, with the problem named."""


@dataclass(frozen=True)
class Pack:
    """A pack read and checked in full: its manifest, its files' bytes by path, and its
    panels resolved for the manifest."""

    manifest: dict
    files: dict[str, bytes]
    panels: list[dict]
    cards: list[dict]  # {path, name, kind} of each card file

    @property
    def pack_id(self) -> str:
        return self.manifest["id"]

    @property
    def version(self) -> str:
        return self.manifest["version"]

    @property
    def trust(self) -> dict:
        return self.manifest["trust"]


def _refuse(text: str, **values: object) -> PackError:
    return PackError(text, **values)


def _load_yaml(data: bytes, *, name: str, limit: int) -> Any:
    return safe_yaml.load(data, name=name, limit=limit, refusal=PackError)


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
    contents = manifest.get("contents", {})
    if not isinstance(contents, dict) or set(contents) - set(CONTENT_KINDS):
        raise _refuse(_("The manifest's contents may hold: {kinds}."), kinds=", ".join(CONTENT_KINDS))
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
            kind: _paths(contents[kind], f"contents.{kind}") for kind in CONTENT_KINDS if kind in contents
        },
        "assets": checked_assets,
        "variables": checked_variables,
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
    if not isinstance(asset, dict) or set(asset) - {"path", "sha256", "mime", "size", "title", "license"}:
        raise _refuse(_("An asset is {{path, title?, license?}}."))
    checked = {"path": check_path(asset.get("path"))}
    for field in ("title", "license"):
        if field in asset:
            if not isinstance(asset[field], str) or len(asset[field]) > 200:
                raise _refuse(_("An asset's {field} must be short text."), field=field)
            checked[field] = asset[field]
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


def mime_of(path: str) -> str:
    """The media type a pack file is served as, from its name."""
    suffix = PurePosixPath(path).suffix.lower()
    return ASSET_MIMES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


def _resolved_panels(manifest: dict, files: dict[str, bytes], digests: dict[str, dict]) -> list[dict]:
    assets = {asset["path"]: asset for asset in manifest["assets"]}

    def picture(path: str, where: str) -> dict:
        asset = assets.get(path)
        if asset is None or path not in digests:
            raise _refuse(
                _("{where}: {path} is not an asset of the pack."), where=where, path=str(path)[:120]
            )
        mime = mime_of(path)
        if mime not in panel_rules.IMAGE_MIMES:
            raise _refuse(_("{where}: {path} is not a picture."), where=where, path=path)
        return {"hash": digests[path]["sha256"], "mime": mime, "size": digests[path]["size"]}

    def page(path: str, where: str) -> dict:
        if path not in digests:
            raise _refuse(_("{where}: {path} is not a file of the pack."), where=where, path=str(path)[:120])
        return {"hash": digests[path]["sha256"], "mime": mime_of(path), "size": digests[path]["size"]}

    resolved: list[dict] = []
    for name in manifest["contents"].get("panels", []):
        if name not in files:
            raise _refuse(_("The panels file {path} is not in the pack."), path=name)
        document = _load_yaml(files[name], name=name, limit=MAX_PANELS_FILE_BYTES)
        resolved.extend(panel_rules.check_panels(document, name=name, picture=picture, page=page))
        if len(resolved) > panel_rules.MAX_PANELS:
            raise _refuse(_("A pack has at most {limit} panels."), limit=panel_rules.MAX_PANELS)
    ids = [panel["id"] for panel in resolved]
    if len(set(ids)) != len(ids):
        raise _refuse(_("Two panels of the pack have the same id."))
    return resolved


def read_cards(manifest: dict, files: dict[str, bytes]) -> list[dict]:
    """Each declared card file, read: `{path, name, kind}`; refused when one cannot be."""
    return [
        {"path": path, **card_files.read_card(path, files[path])}
        for path in manifest["contents"].get("cards", [])
        if path in files
    ]


def trust_card(manifest: dict, files: dict[str, bytes], panels: list[dict]) -> dict:
    """What the pack contains and may do, as counts an operator reads before installing."""
    contents = manifest["contents"]
    hooks = sorted(path for path in files if PurePosixPath(path).name == "hooks.js")
    return {
        "rulepacks": len(contents.get("rulepacks", [])),
        "skills": len(contents.get("skills", [])),
        "cards": len(contents.get("cards", [])),
        "lorebooks": len(contents.get("lorebooks", [])),
        "panels": len(panels),
        "keeper_panels": sum(1 for panel in panels if panel.get("audience") == "keeper"),
        "web_panels": sum(1 for panel in panels if panel.get("tier") == 2),
        "assets": len(manifest["assets"]),
        "asset_bytes": sum(
            len(files[asset["path"]]) for asset in manifest["assets"] if asset["path"] in files
        ),
        "hooks": hooks,
    }


def _content_files(manifest: dict) -> list[str]:
    declared = [path for kind in CONTENT_KINDS for path in manifest["contents"].get(kind, [])]
    return declared + [asset["path"] for asset in manifest["assets"]]


# --- building ---------------------------------------------------------------------


def read_source_manifest(source: Path) -> dict:
    """The checked `pack.yaml` of the pack folder `source` (as the author wrote it)."""
    manifest_path = source / MANIFEST
    if not manifest_path.is_file():
        raise _refuse(_("{folder} has no {manifest}."), folder=str(source), manifest=MANIFEST)
    return check_manifest(
        _load_yaml(manifest_path.read_bytes(), name=MANIFEST, limit=MAX_MANIFEST_BYTES), built=False
    )


def build(source: Path) -> bytes:
    """The `.lwpack` of the folder `source` (its `pack.yaml` and the files it names),
    byte for byte the same for the same folder; refused, naming the problem, when the
    pack could not be installed."""
    source = source.resolve()
    manifest = read_source_manifest(source)
    files: dict[str, bytes] = {}
    for declared in _content_files(manifest):
        for path in _expand(source, declared):
            files[path] = _read_source(source, path)
    digests = {
        path: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)} for path, data in files.items()
    }
    for asset in manifest["assets"]:
        found = digests[asset["path"]]
        pinned = asset.get("sha256")
        if pinned is not None and pinned != found["sha256"]:
            raise _refuse(
                _("The asset {path} does not match the sha256 its manifest pins."), path=asset["path"]
            )
        asset.update(sha256=found["sha256"], mime=mime_of(asset["path"]), size=found["size"])
    panels = _resolved_panels(manifest, files, digests)
    read_cards(manifest, files)
    built = {
        **manifest,
        "manifest_version": MANIFEST_VERSION,
        "files": [{"path": path, **digests[path]} for path in sorted(files)],
        "trust": trust_card(manifest, files, panels),
    }
    output = io.BytesIO()
    with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in [(MANIFEST, _dump(built)), *sorted(files.items())]:
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(entry, data)
    return output.getvalue()


def _dump(manifest: dict) -> bytes:
    return yaml.safe_dump(manifest, allow_unicode=True, sort_keys=True).encode("utf-8")


def _expand(source: Path, declared: str) -> list[str]:
    """A declared path: a file, or (a skill) a folder's files."""
    target = source / declared
    if target.is_symlink():
        raise _refuse(_("{path} is a symlink; a pack holds files only."), path=declared)
    if target.is_dir():
        found = []
        for child in sorted(target.rglob("*")):
            if child.is_symlink():
                raise _refuse(
                    _("{path} is a symlink; a pack holds files only."), path=str(child.relative_to(source))
                )
            if child.is_file():
                found.append(check_path(child.relative_to(source).as_posix()))
        return found
    return [declared]


def _read_source(source: Path, path: str) -> bytes:
    target = (source / path).resolve()
    if not target.is_relative_to(source):
        raise _refuse(_("The path {path} would leave the pack."), path=path)
    if not target.is_file():
        raise _refuse(_("The pack names {path}, which is not in the folder."), path=path)
    if target.stat().st_size > MAX_FILE_BYTES:
        raise _refuse(_("The file {path} is larger than {limit} bytes."), path=path, limit=MAX_FILE_BYTES)
    return target.read_bytes()


# --- reading ----------------------------------------------------------------------


def open_pack(data: bytes) -> Pack:
    """The pack in `data`, checked in full (see the module docstring); PackError naming
    the first problem found otherwise. Nothing is written anywhere."""
    if len(data) > MAX_ARCHIVE_BYTES:
        raise _refuse(_("The pack is larger than {limit} bytes."), limit=MAX_ARCHIVE_BYTES)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as problem:
        raise _refuse(
            _("This is not a pack (not a zip archive): {problem}"), problem=str(problem)[:120]
        ) from None
    with archive:
        if len(members) > MAX_MEMBERS + 1:
            raise _refuse(_("The pack holds more than {limit} files."), limit=MAX_MEMBERS)
        by_name: dict[str, zipfile.ZipInfo] = {}
        for member in members:
            name = check_path(member.filename)
            if member.is_dir() or stat.S_ISLNK(member.external_attr >> 16):
                raise _refuse(_("{path} is not a plain file; a pack holds files only."), path=name)
            if name in by_name:
                raise _refuse(_("The pack holds {path} twice."), path=name)
            by_name[name] = member
        if MANIFEST not in by_name:
            raise _refuse(_("The pack has no {manifest}."), manifest=MANIFEST)
        manifest = check_manifest(
            _load_yaml(
                _inflate(archive, by_name[MANIFEST], MAX_MANIFEST_BYTES),
                name=MANIFEST,
                limit=MAX_MANIFEST_BYTES,
            ),
            built=True,
        )
        inventory = manifest["files"]
        members_named = set(by_name) - {MANIFEST}
        if members_named != set(inventory):
            extra, missing = sorted(members_named - set(inventory)), sorted(set(inventory) - members_named)
            raise _refuse(
                _("The pack's files do not match its inventory (extra: {extra}; missing: {missing})."),
                extra=", ".join(extra)[:200] or "-",
                missing=", ".join(missing)[:200] or "-",
            )
        for path, record in inventory.items():
            member = by_name[path]
            if member.file_size != record["size"]:
                raise _refuse(_("The file {path} is not the size its inventory says."), path=path)
            if member.file_size > RATIO_FLOOR and member.file_size > MAX_RATIO * max(member.compress_size, 1):
                raise _refuse(
                    _("The file {path} inflates more than {ratio} times: refused as a zip bomb."),
                    path=path,
                    ratio=MAX_RATIO,
                )
        files: dict[str, bytes] = {}
        for path, record in inventory.items():
            content = _inflate(archive, by_name[path], record["size"])
            if len(content) != record["size"] or hashlib.sha256(content).hexdigest() != record["sha256"]:
                raise _refuse(_("The file {path} does not match its sha256."), path=path)
            files[path] = content
    for path in _content_files(manifest):
        if path not in files and not any(name.startswith(path + "/") for name in files):
            raise _refuse(_("The pack names {path}, which is not in it."), path=path)
    for asset in manifest["assets"]:
        record = inventory.get(asset["path"], {})
        if (asset["sha256"], asset["size"]) != (record.get("sha256"), record.get("size")):
            raise _refuse(_("The asset {path} does not match the file inventory."), path=asset["path"])
    panels = _resolved_panels(manifest, files, inventory)
    if trust_card(manifest, files, panels) != manifest["trust"]:
        raise _refuse(_("The pack's trust card does not say what the pack holds."))
    return Pack(manifest=manifest, files=files, panels=panels, cards=read_cards(manifest, files))


def _inflate(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's bytes, stopping one byte past `limit` (a lying header inflates no
    further than that)."""
    if member.file_size > limit:
        raise _refuse(_("{path} is larger than {limit} bytes."), path=member.filename, limit=limit)
    try:
        with archive.open(member) as body:
            content = body.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as problem:  # CRC, truncation, method
        raise _refuse(
            _("The file {path} cannot be read: {problem}"), path=member.filename, problem=str(problem)[:120]
        )
    if len(content) > limit:
        raise _refuse(_("{path} is larger than {limit} bytes."), path=member.filename, limit=limit)
    return content
