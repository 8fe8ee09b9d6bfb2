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
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from base.i18n import _
from packs import cards as card_files
from packs import pack_extras, safe_yaml
from packs import panels as panel_rules
from packs.manifest import (  # noqa: F401 (what callers import from here)
    CONTENT_KINDS,
    MANIFEST,
    MANIFEST_VERSION,
    MAX_ARCHIVE_BYTES,
    MAX_FILE_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_MEMBERS,
    MAX_PANELS_FILE_BYTES,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    RATIO_FLOOR,
    PackError,
    _refuse,
    check_manifest,
    check_path,
)

ASSET_MIMES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".opus": "audio/ogg",
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


@dataclass(frozen=True)
class Pack:
    """A pack read and checked in full: its manifest, its files' bytes by path, and its
    panels resolved for the manifest."""

    manifest: dict
    files: dict[str, bytes]
    panels: list[dict]
    cards: list[dict]  # {path, name, kind} of each card file
    # The presentation kit, read (`pack_extras.read_kit`), when the pack ships one.
    kit: dict | None = None

    @property
    def pack_id(self) -> str:
        return self.manifest["id"]

    @property
    def version(self) -> str:
        return self.manifest["version"]

    @property
    def trust(self) -> dict:
        return self.manifest["trust"]


def _load_yaml(data: bytes, *, name: str, limit: int) -> Any:
    return safe_yaml.load(data, name=name, limit=limit, refusal=PackError)


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


def _referenced(manifest: dict, files: dict[str, bytes]) -> list[str]:
    """The files the pack's panels (pictures, web pages and their files) and its
    presentation kit (pictures, sounds) name: assets of the pack, listed in the
    top-level `assets` or not."""
    found: list[str] = []

    def note(path: str, where: str) -> dict:
        if isinstance(path, str) and path not in found:
            found.append(check_path(path))
        return {"hash": "0" * 64, "mime": "image/png", "size": 0}

    for name in manifest["contents"].get("panels", []):
        if name in files:
            document = _load_yaml(files[name], name=name, limit=MAX_PANELS_FILE_BYTES)
            panel_rules.check_panels(document, name=name, picture=note, page=note)
    for name in manifest["contents"].get("presentation", []):
        if name in files:
            for path in pack_extras.kit_files(pack_extras.read_kit(name, files[name])):
                note(path, name)
    return found


def _extras(manifest: dict, files: dict[str, bytes]) -> dict | None:
    """Checks the presets, prep scripts and presentation kit (`pack_extras`); the kit,
    read, with its pictures and sounds checked to be those."""
    contents = manifest["contents"]
    pack_extras.check_presets(contents.get("presets", []), files)
    pack_extras.check_prep(contents.get("prep", []), files)
    kit = None
    for name in contents.get("presentation", []):
        kit = pack_extras.read_kit(name, files[name])
        wanted = [(subject["ref"], panel_rules.IMAGE_MIMES) for subject in kit["subjects"] if subject["ref"]]
        wanted += [(cue["asset"], pack_extras.AUDIO_MIMES) for cue in kit["audio"]]
        for path, mimes in wanted:
            if path not in files:
                raise _refuse(_("{where}: {path} is not a file of the pack."), where=name, path=path)
            if mime_of(path) not in mimes:
                raise _refuse(
                    _("{where}: {path} is not a picture or a sound as it should be."), where=name, path=path
                )
    return kit


def rulepack_scripts(manifest: dict, files: dict[str, bytes]) -> list[str]:
    """The rules scripts the pack's rule systems name (`resolution.script`,
    `subsystems.*.script`): files beside their YAML, shipped with it."""
    found = []
    for name in manifest["contents"].get("rulepacks", []):
        try:
            document = yaml.safe_load(files.get(name, b"").decode("utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError):
            continue  # a rule system is kept as it is; its YAML is the rule system's concern
        if not isinstance(document, dict):
            continue
        holders = [document.get("resolution"), *(document.get("subsystems") or {}).values()]
        for holder in holders:
            script = holder.get("script") if isinstance(holder, dict) else None
            if isinstance(script, str) and script and "/" not in script and "\\" not in script:
                folder = name.rpartition("/")[0]
                found.append(check_path(f"{folder}/{script}" if folder else script))
    return found


def read_cards(manifest: dict, files: dict[str, bytes]) -> list[dict]:
    """Each declared card file, read: `{path, name, kind}`; refused when one cannot be."""
    return [
        {"path": path, **card_files.read_card(path, files[path])}
        for path in manifest["contents"].get("cards", [])
        if path in files
    ]


def trust_card(manifest: dict, files: dict[str, bytes], panels: list[dict], kit: dict | None = None) -> dict:
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
        # The manifest v2 parts, named only when the pack has them (a pack built before
        # them keeps its trust card).
        **{
            key: count
            for key, count in (
                ("presets", len(contents.get("presets", []))),
                ("prep_scripts", len(contents.get("prep", []))),
                ("presentation_subjects", len(kit["subjects"]) if kit else 0),
                ("presentation_audio", len(kit["audio"]) if kit else 0),
                ("card_notes", len(manifest.get("card_notes", {}))),
            )
            if count
        },
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
    listed = {asset["path"] for asset in manifest["assets"]}
    for path in _referenced(manifest, files):
        if path not in listed:  # manifest v2: a panel's or the kit's file is an asset too
            manifest["assets"].append({"path": path})
            files.setdefault(path, _read_source(source, path))
    for path in rulepack_scripts(manifest, files):
        files.setdefault(path, _read_source(source, path))
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
    kit = _extras(manifest, files)
    read_cards(manifest, files)
    built = {
        **manifest,
        "manifest_version": MANIFEST_VERSION,
        "files": [{"path": path, **digests[path]} for path in sorted(files)],
        "trust": trust_card(manifest, files, panels, kit),
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
    kit = _extras(manifest, files)
    trust = trust_card(manifest, files, panels, kit)
    if "has_hooks" in manifest["trust"]:
        # The reference's builder writes a trust card of its own shape: this server's
        # own reading of the pack takes its place (it is what the operator is shown).
        manifest = {**manifest, "trust": trust}
    elif trust != manifest["trust"]:
        raise _refuse(_("The pack's trust card does not say what the pack holds."))
    return Pack(manifest=manifest, files=files, panels=panels, cards=read_cards(manifest, files), kit=kit)


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
