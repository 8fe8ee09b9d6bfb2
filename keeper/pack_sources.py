"""Where a pack a keeper names comes from (`.pack install <ref>`, `.module <pack>`;
docs/packs.md, "Installing").

A reference is one of:

- a name: an installed pack's id (nothing to install), a `.lwpack` file in the packs
  folder (`harbour.lwpack` or `harbour`), or a pack that ships with the server
  (`packs/examples/<id>`, built from its folder when an operator removed it);
- a path inside the packs folder (`sub/harbour.lwpack`; `packs/harbour.lwpack` as the
  terminal client writes it): a path that leaves the folder (`..`, an absolute path, a
  link out of it) is refused before anything is read;
- `gh:owner/repo[@tag]`: the first `.lwpack` asset of the repository's latest release
  (or of the release `tag`), found through the GitHub releases API, as the reference
  server does;
- an `https://` URL of a `.lwpack` file.

The last two are downloads: every connection goes through the endpoint policy
(`keeper.llm.endpoints.PACKS`: on a hosted server only the sources the operator lists
in `TRPG_PACKS__ALLOWED_SOURCES`), redirects are followed one by one and each is
checked again, plain `http://` is taken only from a URL prefix the operator lists,
and a download stops one byte past `TRPG_PACKS__MAX_DOWNLOAD_BYTES`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

from django.conf import settings

from base.i18n import Refusal, _
from keeper.llm import endpoints
from packs import lwpack
from packs.manifest import PACK_ID, PackError
from packs.models import InstalledPack
from packs.services import BUNDLED_DIR, SUFFIX, packs_dir

_GH = re.compile(r"^gh:([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})(?:@([^\s@/]{1,120}))?$")
MAX_REDIRECTS = 5
MAX_RELEASE_BYTES = 2 * 1024 * 1024
TIMEOUT = 30.0


@dataclass(frozen=True)
class Found:
    """What a reference names: a pack installed already, the bytes of one to install,
    or a download to make first (`fetch`, slow: it runs off the table's turn)."""

    shown: str
    installed: InstalledPack | None = None
    data: bytes | None = None
    fetch: Callable[[], bytes] | None = None


def find(ref: str) -> Found:
    """What `ref` names (see the module docstring); PackError when it names nothing."""
    ref = ref.strip()
    if ref.startswith("gh:"):
        match = _GH.match(ref)
        if match is None:
            raise PackError(_("A GitHub pack is named gh:owner/repo or gh:owner/repo@tag."))
        owner, repo, tag = match.groups()
        return Found(ref, fetch=lambda: from_github(owner, repo, tag))
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", ref):
        checked_url(ref)  # a scheme that is never fetched is refused at once
        return Found(ref, fetch=lambda: download(ref))
    if "/" in ref or "\\" in ref or ref.endswith(SUFFIX):
        return Found(ref, data=_read(in_folder(ref)))
    pack = InstalledPack.objects.filter(pack_id=ref).first()
    if pack is not None:
        return Found(ref, installed=pack)
    path = in_folder(ref + SUFFIX, missing_ok=True)
    if path is not None:
        return Found(ref, data=_read(path))
    bundled = BUNDLED_DIR / ref
    if PACK_ID.match(ref) and (bundled / lwpack.MANIFEST).is_file():
        return Found(ref, data=lwpack.build(bundled))
    raise PackError(
        _(
            "There is no pack called {name}: name an installed pack, a .lwpack file in the packs "
            "folder, gh:owner/repo or an https URL."
        ),
        name=ref[:80],
    )


def in_folder(name: str, *, missing_ok: bool = False) -> Path | None:
    """The `.lwpack` file `name` means inside the packs folder; refused for a path that
    would leave it (checked before anything is read), or that is not a pack file."""
    parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".")]
    refused = PackError(
        _("Give a pack file inside the server's packs folder: {name} is refused."), name=name[:80]
    )
    if (
        not parts
        or name.startswith(("/", "\\"))
        or ".." in parts
        or "\0" in name
        or re.match(r"^[A-Za-z]:", name)
    ):
        raise refused
    if any(part.startswith(".") for part in parts):
        raise refused
    folder = packs_dir().resolve()
    tries = [parts[1:], parts] if parts[0] == "packs" and len(parts) > 1 else [parts]
    for inside in tries:
        path = folder.joinpath(*inside)
        if path.suffix != SUFFIX:
            path = path.with_name(path.name + SUFFIX)
        resolved = path.resolve()
        if not resolved.is_relative_to(folder):  # a link that leads out of the folder
            raise refused
        if resolved.is_file():
            return resolved
    if missing_ok:
        return None
    raise PackError(_("There is no pack called {name} in the server's packs folder."), name=name[:80])


def _read(path: Path) -> bytes:
    if path.stat().st_size > lwpack.MAX_ARCHIVE_BYTES:
        raise PackError(_("The pack is larger than {limit} bytes."), limit=lwpack.MAX_ARCHIVE_BYTES)
    return path.read_bytes()


def _listed_plain(url: str) -> bool:
    """Whether the operator lists an `http://` prefix `url` lies under."""
    return any(
        item.strip().lower().startswith("http://")
        and url.lower().startswith(item.strip().lower().rstrip("/"))
        for item in settings.TRPG_PACKS_ALLOWED_SOURCES
    )


def checked_url(url: str) -> str:
    """`url` if a pack may be fetched from it by its scheme (https; http only from a
    listed prefix), else refused; where it connects is checked as it connects."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "https" or (scheme == "http" and _listed_plain(url)):
        return url
    raise PackError(_("Packs are fetched over https only: {url} is refused."), url=url[:120])


def download(url: str, *, limit: int | None = None) -> bytes:
    """The body of `url`, fetched under the packs' endpoint policy, each redirect checked
    again; refused past `limit` bytes (the operator's cap by default)."""
    limit = min(limit or settings.TRPG_PACKS_MAX_DOWNLOAD_BYTES, lwpack.MAX_ARCHIVE_BYTES)
    headers = {"User-Agent": "loreweaver-django-packs", "Accept": "*/*"}
    from keeper.llm import guarded_http  # httpx is loaded with the first request

    try:
        with guarded_http.http_client(
            operator=False, timeout=TIMEOUT, policy=endpoints.PACKS, follow_redirects=False
        ) as client:
            for _hop in range(MAX_REDIRECTS + 1):
                with client.stream("GET", checked_url(url), headers=headers) as response:
                    if response.is_redirect and "location" in response.headers:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code != 200:
                        raise PackError(
                            _("{url} answered {status}."), url=url[:120], status=response.status_code
                        )
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > limit:
                        raise _too_large(url, limit)
                    body = bytearray()
                    for chunk in response.iter_bytes():
                        body += chunk
                        if len(body) > limit:
                            raise _too_large(url, limit)
                    return bytes(body)
    except Refusal:
        raise
    except Exception as failed:  # a connection's failure, the policy's refusal inside it
        refused = endpoints.refusal_in(failed)
        if refused is not None:
            raise refused from None
        raise PackError(
            _("{url} could not be fetched: {problem}"), url=url[:120], problem=str(failed)[:160]
        ) from None
    raise PackError(_("{url} redirects more than {count} times."), url=url[:120], count=MAX_REDIRECTS)


def _too_large(url: str, limit: int) -> PackError:
    return PackError(_("The download from {url} is larger than {limit} bytes."), url=url[:120], limit=limit)


def from_github(owner: str, repo: str, tag: str | None) -> bytes:
    """The first `.lwpack` asset of the release (`tag`, else the latest) of
    `owner/repo`, through the GitHub releases API (`TRPG_PACKS__GITHUB_API`)."""
    api = settings.TRPG_PACKS_GITHUB_API
    where = f"releases/tags/{quote(tag, safe='')}" if tag else "releases/latest"
    release_url = f"{api}/repos/{owner}/{repo}/{where}"
    try:
        release = json.loads(download(release_url, limit=MAX_RELEASE_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise PackError(_("GitHub's answer about {ref} cannot be read."), ref=f"{owner}/{repo}") from None
    assets = release.get("assets") if isinstance(release, dict) else None
    for asset in assets if isinstance(assets, list) else []:
        if isinstance(asset, dict) and str(asset.get("name", "")).endswith(SUFFIX):
            url = str(asset.get("browser_download_url") or "")
            if url:
                return download(url)
    raise PackError(
        _("The release of {ref} has no .lwpack file."), ref=f"{owner}/{repo}" + (f"@{tag}" if tag else "")
    )
