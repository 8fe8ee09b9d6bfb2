"""Room backups seen from outside a server: the keeper tab's list and download over
HTTP (with the keeper's key in the `Authorization` header, as the browser table sends
it), a backup file's document read back, whichever format wrote it, and an archive
rewritten with its document changed."""

from __future__ import annotations

import email.message
import json
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loreweaver.testing.metrics import http_get

PIECE = 1024 * 1024


def http_base(server: Any) -> str:
    """The server's HTTP address (the WebSocket's, as http)."""
    return server.ws_url.replace("ws://", "http://").rstrip("/")


def listed_backups(server: Any, key: str) -> list[dict]:
    """The keeper tab's list of the key's room's backups (`GET /table/backups`)."""
    status, body = http_get(http_base(server) + "/table/backups", {"Authorization": f"Bearer {key}"})
    assert status == 200, body
    return json.loads(body)["backups"]


def download_backup(server: Any, key: str, name: str, folder: Path) -> Path:
    """Download the backup `name` as the keeper tab does (`GET /table/backups/<name>`),
    piece by piece, into `folder` under the file name the answer gives; its path."""
    request = urllib.request.Request(
        http_base(server) + "/table/backups/" + urllib.parse.quote(name, safe=""),
        headers={"Authorization": f"Bearer {key}"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        disposition = email.message.Message()
        disposition["content-disposition"] = answer.headers["Content-Disposition"]
        target = folder / Path(disposition.get_filename() or name).name
        with target.open("wb") as saved:
            while piece := answer.read(PIECE):
                saved.write(piece)
    return target


# A backup an earlier version wrote: its document and, beside it, its media archive,
# kept as the folder of the archive's files (no archive is committed).
EARLIER_BACKUP = Path(__file__).parents[2] / "rooms" / "tests" / "fixtures" / "earlier-version"


def copy_earlier_backup(folder: Path) -> int:
    """Put the earlier version's backup into `folder` as that version wrote it (the
    document, and its media archive zipped: one member per file, named by its hash);
    how many bytes the two files hold."""
    folder.mkdir(parents=True, exist_ok=True)
    for part in EARLIER_BACKUP.iterdir():
        if part.is_dir():
            with zipfile.ZipFile(folder / f"{part.name}.zip", "w") as archive:
                for blob in sorted(part.iterdir()):
                    archive.write(blob, blob.name)
        else:
            (folder / part.name).write_bytes(part.read_bytes())
    return sum(copied.stat().st_size for copied in folder.glob("before-the-archive*"))


def backup_document(path: Path) -> dict:
    """The JSON document of a backup file: an archive's first member, or a `.json`
    document an earlier version wrote."""
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(archive.namelist()[0]))


def rewrite_backup(source: Path, target: Path, change: Callable[[dict], None]) -> None:
    """A copy of the backup archive `source` at `target` whose document `change` altered
    (a damaged or doctored backup), its other members as they were."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        names = original.namelist()
        document = json.loads(original.read(names[0]))
        change(document)
        copy.writestr(names[0], json.dumps(document))
        for name in names[1:]:
            copy.writestr(name, original.read(name))
