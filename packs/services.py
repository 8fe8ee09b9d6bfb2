"""Installing, listing and removing content packs; what the management command, the
keepers' `.pack` commands and the admin all call.

Install is all or nothing: the whole pack is read and checked first (`lwpack.open_pack`,
nothing written), then its files go to the media storage (content-addressed, so a
file that is already there is not written twice), then one transaction records the
pack and its files. A failure after the files were written removes the ones no pack
uses. Installing does not enable anything in any room.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from base.i18n import _, say
from media_store.models import MediaItem, MediaKind
from packs import hook_cache, hooks, lwpack
from packs import panels as panel_rules
from packs.lwpack import PackError
from packs.models import BundledPack, InstalledPack, PackFile, RoomHook, RoomPack, storage_key
from packs.signals import room_panels_changed

log = logging.getLogger(__name__)

SUFFIX = ".lwpack"


BUNDLED_DIR = Path(__file__).resolve().parent / "examples"


def install_bundled() -> list[InstalledPack]:
    """Install the packs that ship with the server (`packs/examples/`), each once: one
    an operator removed stays removed. Enables nothing."""
    done = []
    for folder in sorted(path for path in BUNDLED_DIR.iterdir() if (path / lwpack.MANIFEST).is_file()):
        # The manifest alone says which pack it is: a server that has had it is not
        # made to build and check it again at every start.
        source = lwpack.read_source_manifest(folder)
        if BundledPack.objects.filter(pack_id=source["id"]).exists():
            continue
        if not InstalledPack.objects.filter(pack_id=source["id"]).exists():
            try:
                done.append(install(lwpack.build(folder), by="bundled"))
            except PackError:  # another process installed it this moment
                continue
        BundledPack.objects.get_or_create(pack_id=source["id"], defaults={"version": source["version"]})
    return done


def packs_dir() -> Path:
    """Where the operator puts `.lwpack` files that keepers may install by name."""
    return Path(settings.DATA_DIR) / "packs"


@dataclass(frozen=True)
class Offered:
    """A pack file in the packs folder, by the name a keeper types."""

    name: str
    path: Path


def offered() -> list[Offered]:
    """The `.lwpack` files in the packs folder, by name."""
    folder = packs_dir()
    if not folder.is_dir():
        return []
    return [
        Offered(path.name[: -len(SUFFIX)], path)
        for path in sorted(folder.iterdir())
        if path.name.endswith(SUFFIX) and path.is_file() and not path.is_symlink()
    ]


def check(data: bytes) -> lwpack.Pack:
    """The pack in `data`, read and checked in full: not installed already, or installed
    at the same version (which an install replaces, as an author rebuilding it expects)."""
    return _checked(data)[0]


def _checked(data: bytes) -> tuple[lwpack.Pack, InstalledPack | None]:
    """`check`, with the installed pack of the same id and version it would replace."""
    pack = lwpack.open_pack(data)
    existing = InstalledPack.objects.filter(pack_id=pack.pack_id).first()
    if existing is not None and existing.version != pack.version:
        raise PackError(
            _("A pack called {id} is installed already (version {version}); remove it first."),
            id=pack.pack_id,
            version=existing.version,
        )
    return pack, existing


def install(data: bytes, *, by: str = "") -> InstalledPack:
    """Install the pack in `data` (all of it, or nothing); PackError names the problem.
    The same id at the same version replaces what is installed, in every room that has
    it on (its panels and hooks are the new build's from the next turn)."""
    pack, replaced = _checked(data)
    old_keys = [] if replaced is None else _storage_keys(replaced)
    written = []
    try:
        for path, content in pack.files.items():
            key = storage_key(_digest(pack, path))
            if not default_storage.exists(key):
                saved = default_storage.save(key, ContentFile(content))
                written.append(saved)
                if saved != key:  # another install wrote the same bytes meanwhile
                    default_storage.delete(saved)
                    written.remove(saved)
        with transaction.atomic():
            fields = {
                "name": pack.manifest["name"],
                "description": pack.manifest["description"],
                "license": pack.manifest["license"],
                "manifest": pack.manifest,
                "panels": pack.panels,
                "cards": pack.cards,
                "installed_by": by[:64],
            }
            if replaced is not None:
                installed = replaced
                for name, value in fields.items():
                    setattr(installed, name, value)
                installed.save()
                installed.files.all().delete()
            else:
                installed = InstalledPack.objects.create(pack_id=pack.pack_id, version=pack.version, **fields)
            PackFile.objects.bulk_create(
                PackFile(
                    pack=installed,
                    path=path,
                    sha256=_digest(pack, path),
                    size=len(content),
                    mime=lwpack.mime_of(path),
                )
                for path, content in sorted(pack.files.items())
            )
    except IntegrityError:
        _forget_unused(written)
        raise PackError(
            _("A pack called {id} is installed already; remove it first."), id=pack.pack_id
        ) from None
    except BaseException:
        _forget_unused(written)
        raise
    if replaced is not None:
        _forget_unused(old_keys)
        for room_id in installed.rooms.values_list("room_id", flat=True):
            room_panels_changed.send(sender=InstalledPack, room_id=room_id)
    log.info("pack %s %s installed by %s", pack.pack_id, pack.version, by or "the operator")
    return installed


def _storage_keys(pack: InstalledPack) -> list[str]:
    return sorted({storage_key(sha256) for sha256 in pack.files.values_list("sha256", flat=True)})


def _digest(pack: lwpack.Pack, path: str) -> str:
    return pack.manifest["files"][path]["sha256"]


def _forget_unused(keys: list[str]) -> None:
    for key in keys:
        sha256 = key.rsplit("/", 1)[-1]
        if not PackFile.objects.filter(sha256=sha256).exists():
            default_storage.delete(key)


def installed() -> list[InstalledPack]:
    """Every installed pack, by id."""
    return list(InstalledPack.objects.all())


def remove(pack_id: str) -> InstalledPack:
    """Uninstall `pack_id`: its record, and its files' bytes that no other pack uses."""
    pack = InstalledPack.objects.filter(pack_id=pack_id.strip()).first()
    if pack is None:
        raise PackError(_("No pack called {id} is installed."), id=pack_id.strip()[:80])
    keys = _storage_keys(pack)
    with transaction.atomic():
        rooms = list(pack.rooms.values_list("room_id", flat=True))
        pack.delete()
        for room_id in rooms:
            room_panels_changed.send(sender=InstalledPack, room_id=room_id)
    _forget_unused(keys)
    log.info("pack %s %s removed", pack.pack_id, pack.version)
    return pack


def read_file(pack_file: PackFile) -> bytes:
    """A file's bytes from the media storage."""
    with default_storage.open(pack_file.storage_key, "rb") as body:
        return body.read()


def trust_lines(manifest: dict, locale: str, *, enabling: bool = False) -> list[str]:
    """The trust card, as lines to read before installing: what the pack is, what it
    holds, and what it may do (`enabling`: the install turns it on in a room too)."""
    trust = manifest["trust"]
    name = manifest["name"].get(locale) or manifest["name"].get("en", manifest["id"])
    lines = [
        say(
            locale,
            _("{name} ({id} {version}), license {license}"),
            name=name,
            id=manifest["id"],
            version=manifest["version"],
            license=manifest["license"],
        ),
        say(
            locale,
            _(
                "Holds: {rulepacks} rule systems, {skills} skills, {cards} cards, {lorebooks} lorebooks, "
                "{panels} panels ({keeper_panels} for keepers only), {assets} assets ({asset_bytes} bytes)."
            ),
            **{
                key: trust.get(key, 0)
                for key in (
                    "rulepacks",
                    "skills",
                    "cards",
                    "lorebooks",
                    "panels",
                    "keeper_panels",
                    "assets",
                    "asset_bytes",
                )
            },
        ),
    ]
    lines += _counted_lines(trust, locale, _COUNTED_POWERS)
    if trust.get("hooks"):
        lines.append(
            say(
                locale,
                _("May: run JavaScript hooks during turns (sandboxed): {files}."),
                files=", ".join(trust["hooks"]),
            )
        )
    lines += _kept_lines(manifest, locale)
    if not enabling:
        lines.append(say(locale, _("Installing enables nothing: a keeper turns its panels on in a room.")))
    return lines


# The trust card's lines that only count something, by the trust entry that counts it:
# what the pack may do here, and what it holds that this server keeps without using.
_COUNTED_POWERS = (
    ("variables", _("Declares {count} module variables for the rooms that turn it on.")),
    ("web_panels", _("May: show {count} web page panels in rich clients.")),
)
_COUNTED_KEPT = (
    ("presets", _("Holds {count} prompt presets: kept with the pack, not used by this server's Keeper.")),
    (
        "prep_scripts",
        _("Holds {count} prep scripts (JavaScript): kept with the pack, never run by this server."),
    ),
)


def _counted_lines(trust: dict, locale: str, counted: tuple[tuple[str, str], ...]) -> list[str]:
    return [say(locale, text, count=trust[key]) for key, text in counted if trust.get(key)]


def _kept_lines(manifest: dict, locale: str) -> list[str]:
    """The manifest v2 parts on the trust card: what the pack holds that this server
    keeps without acting on it, and the notes its author wrote for its cards."""
    trust = manifest["trust"]
    lines = _counted_lines(trust, locale, _COUNTED_KEPT)
    if trust.get("presentation_subjects") or trust.get("presentation_audio"):
        lines.append(
            say(
                locale,
                _(
                    "Holds a presentation kit ({subjects} subjects, {cues} sound cues): its pictures and "
                    "sounds are assets of the pack; this server does not stage it."
                ),
                subjects=trust.get("presentation_subjects", 0),
                cues=trust.get("presentation_audio", 0),
            )
        )
    for path, notes in manifest.get("card_notes", {}).items():
        note = notes.get(locale) or notes.get("en") or next(iter(notes.values()))
        lines.append(say(locale, _("Notes for the card {path}: {note}"), path=path, note=note))
    return lines


# --- packs in a room ----------------------------------------------------------------


def enabled(room_id: int) -> list[InstalledPack]:
    """The packs whose panels are on in the room, in the order they were turned on."""
    return [link.pack for link in RoomPack.objects.filter(room_id=room_id).select_related("pack")]


def enable(room_id: int, pack_id: str, *, by: str = "") -> InstalledPack:
    """Turn an installed pack's panels on in the room (again: nothing changes)."""
    pack = InstalledPack.objects.filter(pack_id=pack_id.strip()).first()
    if pack is None:
        raise PackError(_("No pack called {id} is installed."), id=pack_id.strip()[:80])
    RoomPack.objects.get_or_create(room_id=room_id, pack=pack, defaults={"enabled_by": by[:64]})
    return pack


def disable(room_id: int, pack_id: str) -> InstalledPack:
    """Turn a pack's panels off in the room."""
    link = (
        RoomPack.objects.filter(room_id=room_id, pack__pack_id=pack_id.strip()).select_related("pack").first()
    )
    if link is None:
        raise PackError(_("The pack {id} is not on in this room."), id=pack_id.strip()[:80])
    link.delete()
    return link.pack


def room_manifests(room_id: int) -> dict[str, list[dict]]:
    """The room's `ui_manifest` panels for each role ("player", "keeper"), resolved here
    so the audience never leaves the server."""
    packs = enabled(room_id)
    return {
        role: [
            panel
            for pack in packs
            for panel in panel_rules.manifest_for(
                pack.panels, pack_id=pack.pack_id, is_keeper=role == "keeper"
            )
        ]
        for role in ("player", "keeper")
    }


def room_asset(room_id: int, sha256: str) -> tuple[PackFile, bytes] | None:
    """A file of a pack enabled in the room, by its hash, with its bytes checked against
    the digest its manifest recorded (None when there is none, or the stored bytes no
    longer match)."""
    pack_file = PackFile.objects.filter(sha256=sha256, pack__rooms__room_id=room_id).first()
    if pack_file is None:
        return None
    content = read_file(pack_file)
    if hashlib.sha256(content).hexdigest() != pack_file.sha256:
        log.warning("pack %s: stored %s does not match its digest", pack_file.pack.pack_id, pack_file.path)
        return None
    return pack_file, content


def pack_cards() -> list[dict]:
    """Every installed pack's card files, as `pack_cards` lists them: the reference a
    card import takes (`<pack id>/<path>`), the pack, the file's stem and its kind;
    names only, never a card's content."""
    return [
        {
            "ref": f"{pack.pack_id}/{card['path']}",
            "pack": pack.pack_id,
            "name": card["name"],
            "kind": card["kind"],
        }
        for pack in InstalledPack.objects.all()
        for card in pack.cards
    ]


def card_file(ref: str) -> tuple[str, bytes] | None:
    """(its path, its bytes) of the installed pack card `ref` (`<pack id>/<path>`), or
    None when no pack ships one by that reference."""
    pack_id, _sep, path = ref.partition("/")
    pack = InstalledPack.objects.filter(pack_id=pack_id).first()
    if pack is None or not any(card["path"] == path for card in pack.cards):
        return None
    pack_file = PackFile.objects.filter(pack=pack, path=path).first()
    return (path, read_file(pack_file)) if pack_file else None


# Pack files are content-addressed, so a script read once by its hash never goes stale.
_scripts: dict[str, str] = {}


def room_hook_scripts(room_id: int, *, none_as_of: int | None = None) -> list[hooks.Script]:
    """The hook scripts that run in the room: each `hooks.js` of the packs on in it (in
    the order they were turned on), then the scripts world cards brought. Kept between
    turns until a write may have changed them (`packs/hook_cache.py`). `none_as_of`:
    this transaction found the room without any (`hook_scripts_exist_sql`) when this
    thread's `hook_cache.changes_here()` read that number; none is read again unless
    the thread wrote to some room's scripts since."""
    if none_as_of is not None and none_as_of == hook_cache.changes_here():
        return []
    return hook_cache.scripts(room_id, _read_hook_scripts)


def hook_scripts_exist_sql(room_column: str) -> str:
    """An SQL expression true when the room whose id is in `room_column` has any hook
    script (`room_hook_scripts`): a turn reads it with its key where the scripts are
    not kept between turns, and most rooms have none to read."""
    files, links, cards = (model._meta.db_table for model in (PackFile, RoomPack, RoomHook))
    return (
        f"(EXISTS (SELECT 1 FROM {files} file JOIN {links} link ON link.pack_id = file.pack_id "
        f"WHERE link.room_id = {room_column} AND file.path LIKE '%%hooks.js') "
        f"OR EXISTS (SELECT 1 FROM {cards} hook WHERE hook.room_id = {room_column}))"
    )


def _read_hook_scripts(room_id: int) -> list[hooks.Script]:
    # One plain query: every line of play asks, and most rooms have none.
    files, links, packs, cards = (
        model._meta.db_table for model in (PackFile, RoomPack, InstalledPack, RoomHook)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 0, link.id, file.path, file.sha256, pack.pack_id, file.id FROM {files} file "
            f"JOIN {links} link ON link.pack_id = file.pack_id JOIN {packs} pack ON pack.id = file.pack_id "
            f"WHERE link.room_id = %s AND file.path LIKE %s "
            f"UNION ALL SELECT 1, hook.position, hook.source, hook.code, '', hook.id FROM {cards} hook "
            f"WHERE hook.room_id = %s ORDER BY 1, 2, 3",
            [room_id, "%hooks.js", room_id],
        )
        rows = cursor.fetchall()
    scripts = []
    for from_card, position, path, text, pack_id, row_id in rows:
        if from_card:
            scripts.append(hooks.Script(f"card {path} #{position + 1}", text))
            continue
        if PurePosixPath(path).name != "hooks.js":
            continue
        code = _scripts.get(text)  # pack files are content-addressed: by their hash
        if code is None:
            try:
                code = read_file(PackFile.objects.get(pk=row_id)).decode("utf-8")
            except (OSError, UnicodeDecodeError, PackFile.DoesNotExist) as failed:
                log.warning("pack %s: %s cannot be read: %s", pack_id, path, failed)
                continue
            _scripts[text] = code
        scripts.append(hooks.Script(f"{pack_id}/{path}", code, pack_id))
    return scripts


def reachable_pictures(room_id: int, hashes: set[str]) -> dict[str, dict]:
    """Of `hashes`, the pictures this room can reach (its own images, pictures of the
    packs on in it), each with its authoritative `{mime, size}`."""
    if not hashes:
        return {}
    found = {
        pack_file.sha256: {"mime": pack_file.mime, "size": pack_file.size}
        for pack_file in PackFile.objects.filter(
            pack__rooms__room_id=room_id, sha256__in=hashes, mime__in=panel_rules.IMAGE_MIMES
        )
    }
    for item in MediaItem.objects.filter(room_id=room_id, sha256__in=hashes, kind=MediaKind.IMAGE):
        found[item.sha256] = {"mime": item.mime, "size": item.size}
    return found


def find_picture(room_id: int, name: str) -> str | None:
    """The hash of a picture this room can reach, named by its hash, its title or file
    name (the room's images), or its path in a pack on in the room; None if none."""
    name = name.strip()
    if not name:
        return None
    item = (
        MediaItem.objects.filter(room_id=room_id, kind=MediaKind.IMAGE)
        .filter(Q(sha256=name) | Q(title__iexact=name) | Q(name__iexact=name))
        .order_by("-id")
        .first()
    )
    if item is not None:
        return item.sha256
    pack_file = (
        PackFile.objects.filter(pack__rooms__room_id=room_id, mime__in=panel_rules.IMAGE_MIMES)
        .filter(Q(sha256=name) | Q(path=name) | Q(path__endswith="/" + name))
        .first()
    )
    return pack_file.sha256 if pack_file else None
