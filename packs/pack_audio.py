"""A pack's soundtrack in a room (docs/rules.md, "The audio desk"): `.audio import
<pack>` copies the audio files of an installed pack into the room's audio library, so
the keeper's desk (and Loreweaver Studio's deck, which offers the library's titles)
can play them.

Installing a pack is server-wide and a room's sound is its keeper's choice, so nothing
is imported by itself. Each file keeps what the pack's manifest says of it: its title
(the file's stem when it has none), its license (the pack's when the asset names
none), and where it came from (`<pack id>/<path>`). The room's audio limits hold as
for an upload (type, size per file, the room's quota); the upload switch and the
per-minute rate, which hold members' uploads, do not.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from base.i18n import Refusal, _
from media_store.models import MediaItem
from media_store.services import AUDIO_MIMES, MediaError, Uploader, store_bytes
from packs.models import InstalledPack, PackFile
from packs.services import read_file

# As many files as one line imports (the reference's cap): a pack with a whole album
# is imported in one go, not one that fills the room's quota by surprise.
MAX_FILES = 24


@dataclass
class Imported:
    """What an import did: the room's items (new or refreshed), and the files left out
    with the media error code that kept each one out."""

    pack: InstalledPack
    items: list[MediaItem] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    more: int = 0  # audio files past MAX_FILES, not imported


def _assets(pack: InstalledPack) -> dict[str, dict]:
    assets = pack.manifest.get("assets") if isinstance(pack.manifest, dict) else None
    return {
        asset["path"]: asset
        for asset in assets or []
        if isinstance(asset, dict) and isinstance(asset.get("path"), str)
    }


def _text(value: object, limit: int) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def import_pack_audio(room_id: int, pack_id: str, uploader: Uploader) -> Imported:
    """Copy the installed pack `pack_id`'s audio files into the room's library (at most
    `MAX_FILES`, in path order). Raises `Refusal` when no such pack is installed."""
    wanted = pack_id.strip()
    pack = InstalledPack.objects.filter(pack_id__iexact=wanted).first() if wanted else None
    if pack is None:
        raise Refusal(_("No pack called {id} is installed."), id=wanted[:80])
    assets = _assets(pack)
    files = list(PackFile.objects.filter(pack=pack, mime__in=AUDIO_MIMES).order_by("path"))
    done = Imported(pack, more=max(0, len(files) - MAX_FILES))
    for pack_file in files[:MAX_FILES]:
        path = PurePosixPath(pack_file.path)
        data = read_file(pack_file)
        if hashlib.sha256(data).hexdigest() != pack_file.sha256:
            # The stored bytes are not the ones the pack was installed with.
            done.left_out.append((path.name, "media_hash_mismatch"))
            continue
        try:
            item = store_bytes(uploader, name=path.name, mime=pack_file.mime, data=data, member_upload=False)
        except MediaError as refused:
            done.left_out.append((path.name, refused.code))
            continue
        asset = assets.get(pack_file.path, {})
        title = _text(asset.get("title"), 200)
        # A title the keeper gave the file before (anything but the upload's default,
        # its file name) stays unless the manifest names one.
        if title or not item.title or item.title == item.name:
            item.title = title or path.stem[:200]
        item.license = item.license or _text(asset.get("license"), 200) or _text(pack.license, 200)
        item.source = item.source or f"{pack.pack_id}/{pack_file.path}"[:500]
        tags = asset.get("tags")
        if not item.tags and isinstance(tags, list):
            item.tags = [t.strip()[:40] for t in tags if isinstance(t, str) and t.strip()][:20]
        item.save(update_fields=["title", "license", "source", "tags"])
        done.items.append(item)
    return done
