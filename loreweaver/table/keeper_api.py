"""What the browser table's keeper screens read over HTTP, for lists the protocol's
admin frames do not carry: the room's backups (to restore one by name with
`admin_import_room`, or download it) and the installed packs (to turn their panels on
with `.panels enable`).

The caller proves who they are with their access key in an `Authorization: Bearer`
header (never the address, so it stays out of logs and referrers); only a keeper key
gets an answer, and only about its own room.
"""

from __future__ import annotations

from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from packs import services as pack_services
from rooms import backups
from rooms.models import AccessKey, Role, RoomBackup
from rooms.services import key_lookup

# A keeper screen lists the newest backups; older ones stay in the operator console.
LISTED_BACKUPS = 50


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
    """The keeper's room's backups, newest first: name, size in bytes, when it was made."""
    key = _keeper_key(request)
    if key is None:
        return _refused()
    listed = RoomBackup.objects.filter(room_id=key.room_id).order_by("-created_at", "-id")
    return JsonResponse(
        {
            "backups": [
                {"name": b.path.rsplit("/", 1)[-1], "size": b.size, "created": b.created_at.isoformat()}
                for b in listed[:LISTED_BACKUPS]
            ]
        }
    )


@require_GET
@never_cache
def room_backup_file(request: HttpRequest, name: str) -> HttpResponse:
    """One of the keeper's room's backup documents, as a download (another room's
    backups do not exist here, whatever the name)."""
    key = _keeper_key(request)
    if key is None:
        return _refused()
    try:
        path = backups.backup_file(backups.backup_of(key.room_id, name))
    except backups.BackupError:
        return JsonResponse({"error": "this room has no backup called that"}, status=404)
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)


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
