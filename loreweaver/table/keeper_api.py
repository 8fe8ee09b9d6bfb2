"""What the browser table's keeper screens read over HTTP, for lists the protocol's
admin frames do not carry: the room's backups (to restore one by name with
`admin_import_room`, or download it) and the installed packs (to turn their panels on
with `.panels enable`).

The caller proves who they are with their access key in an `Authorization: Bearer`
header (never the address, so it stays out of logs and referrers); only a keeper key
gets an answer, and only about its own room. A browser downloads a backup by following
a link (so the file streams to its disk, never whole into the page's memory): the
keeper asks for one with their key, and the link carries a ticket for that one backup
that lapses after a minute instead of the key.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.core import signing
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from loreweaver.console.downloads import backup_download
from packs import services as pack_services
from rooms import backups
from rooms.models import AccessKey, Role, RoomBackup
from rooms.services import key_lookup

# A keeper screen lists the newest backups; older ones stay in the operator console.
LISTED_BACKUPS = 50
# How long a download link's ticket opens its backup, in seconds.
TICKET_SECONDS = 60
_TICKET_SALT = "loreweaver.table.backup-download"


def _keeper_key(request: HttpRequest) -> AccessKey | None:
    scheme, _sep, key = request.headers.get("Authorization", "").partition(" ")
    found = key_lookup(key.strip()) if scheme.lower() == "bearer" else None
    return found if found is not None and found.role == Role.KEEPER else None


def _refused() -> JsonResponse:
    response = JsonResponse({"error": "a keeper key of this room is needed"}, status=401)
    response["WWW-Authenticate"] = "Bearer"
    return response


@require_GET
@never_cache
def room_backups(request: HttpRequest) -> HttpResponse:
    """The keeper's room's backups, newest first: name, size in bytes (the whole
    archive's), when it was made; the same list the console shows for the room."""
    key = _keeper_key(request)
    if key is None:
        return _refused()
    listed = backups.listing(key.room_id)
    return JsonResponse(
        {
            "backups": [
                {"name": b.path.rsplit("/", 1)[-1], "size": b.size, "created": b.created_at.isoformat()}
                for b in listed[:LISTED_BACKUPS]
            ]
        }
    )


def _ticket(backup: RoomBackup) -> str:
    return signing.dumps([backup.room_id, backup.pk], salt=_TICKET_SALT, compress=True)


def _ticket_backup(ticket: str, name: str) -> RoomBackup | None:
    """The backup a download link's ticket opens, if it is still good and names it."""
    try:
        room_id, backup_id = signing.loads(ticket, salt=_TICKET_SALT, max_age=TICKET_SECONDS)
        backup = backups.backup_of(room_id, name)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    return backup if backup.pk == backup_id else None


def _keepers_backup(request: HttpRequest, name: str) -> RoomBackup | HttpResponse:
    """The backup called `name` of the room of the keeper key the request carries, or
    the answer that refuses it."""
    key = _keeper_key(request)
    if key is None:
        return _refused()
    try:
        return backups.backup_of(key.room_id, name)
    except backups.BackupError:
        return JsonResponse({"error": "this room has no backup called that"}, status=404)


@require_GET
@never_cache
def room_backup_link(request: HttpRequest, name: str) -> HttpResponse:
    """A link that downloads one of the keeper's room's backups for the next minute."""
    backup = _keepers_backup(request, name)
    if isinstance(backup, HttpResponse):
        return backup
    url = reverse("table-backup-file", args=[backup.name]) + "?" + urlencode({"ticket": _ticket(backup)})
    return JsonResponse({"url": url, "expires_in": TICKET_SECONDS})


@require_GET
@never_cache
def room_backup_file(request: HttpRequest, name: str) -> HttpResponse:
    """One of the keeper's room's backups, as one archive to download, streamed
    (another room's backups do not exist here, whatever the name): for a keeper key, or
    with a download link's ticket."""
    ticket = request.GET.get("ticket")
    if ticket is not None:
        backup = _ticket_backup(ticket, name)
        if backup is None:
            return JsonResponse({"error": "this download link is not valid (any more)"}, status=403)
    else:
        backup = _keepers_backup(request, name)
        if isinstance(backup, HttpResponse):
            return backup
    try:
        return backup_download(backup)
    except backups.BackupError as exc:  # an earlier version's backup that lost its media
        return JsonResponse({"error": str(exc)}, status=409)


@require_GET
@never_cache
def room_packs(request: HttpRequest) -> HttpResponse:
    """The packs installed on the server, with their panels and whether they are on in
    the keeper's room."""
    key = _keeper_key(request)
    if key is None:
        return _refused()
    locale = "zh" if request.GET.get("locale") == "zh" else "en"
    on = {pack.pack_id for pack in pack_services.enabled(key.room_id)}
    return JsonResponse(
        {
            "packs": [
                {
                    "id": pack.pack_id,
                    "title": pack.title(locale),
                    "version": pack.version,
                    "panels": len(pack.panels),
                    "on": pack.pack_id in on,
                }
                for pack in pack_services.installed()
            ]
        }
    )
