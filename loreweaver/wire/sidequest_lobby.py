"""The current SideQuest client's lobby (docs/sidequest.md, "The two client generations"):
`POST /api/games`, `GET /api/games/<slug>` and `GET /api/sessions` (always answered),
and `/api/genres` in the shape of the generation `TRPG_SIDEQUEST__CLIENT` names.

A game is a room open to any name; its slug names the room and carries a token made
from the server's secret key, so a slug cannot be guessed from a room's name: only the
lobby hands it out, and only for rooms the operator opened."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from pydantic import ValidationError

from keeper.models import TableSettings
from loreweaver.wire import coordination
from loreweaver.wire.protocol.sidequest import parse_new_game
from loreweaver.wire.sidequest_table import genre_of, genres
from rooms.models import Room
from rooms.services import room_get_or_create


def game_slug(room: Room) -> str:
    """The slug the current client names `room` by: readable, and unguessable."""
    token = hmac.new(settings.SECRET_KEY.encode(), f"sidequest-game:{room.pk}".encode(), hashlib.sha256)
    return f"{slugify(room.name) or 'room'}-{token.hexdigest()[:16]}"


def room_of_game(slug: str) -> Room | None:
    """The open room `slug` names (None for any other slug, or a room since closed)."""
    for room in Room.objects.filter(open_to_all=True):
        if hmac.compare_digest(game_slug(room), slug):
            return room
    return None


def world_of_game(slug: str) -> str | None:
    """The name of the open room `slug` names (what a connect joins as its world)."""
    room = room_of_game(slug)
    return room.name if room else None


def rich_genres() -> dict[str, dict]:
    """`GET /api/genres` for the current client: each genre with its open rooms as
    world objects."""
    listed: dict[str, dict] = {}
    open_rooms = Room.objects.filter(open_to_all=True).select_related("table_settings", "story")
    for room in open_rooms.order_by("name"):
        genre = genre_of(room)
        entry = listed.setdefault(
            genre, {"name": genre.replace("_", " ").title(), "description": "", "worlds": []}
        )
        story = getattr(room, "story", None)
        entry["worlds"].append(
            {
                "slug": room.name,
                "name": room.name,
                "description": story.module_title if story and story.module_title else "",
                "era": None,
                "setting": None,
                "inspirations": [],
                "axis_snapshot": {},
                "hero_image": None,
            }
        )
    return dict(sorted(listed.items()))


@require_GET
def genres_view(request: HttpRequest) -> JsonResponse:
    """`GET /api/genres`, in the shape of the client generation served."""
    return JsonResponse(rich_genres() if settings.TRPG_SIDEQUEST_CLIENT == "current" else genres())


def _game(room: Room, *, resumed: bool, player_name: str | None = None) -> dict:
    return {
        "slug": game_slug(room),
        "mode": "multiplayer",
        "genre_slug": genre_of(room),
        "world_slug": room.name,
        "resumed": resumed,
        "player_name": player_name,
    }


@csrf_exempt  # no cookie acts here: a keyless lobby; JSON only, which a cross-site form cannot send
@require_POST
def games_view(request: HttpRequest) -> JsonResponse:
    """`POST /api/games`: the game of a world. It is the world's open room, or, where the
    operator lets players start games and the client asks for a new one, a room of its
    own in the world's genre and rule system."""
    if request.content_type != "application/json":
        return JsonResponse({"detail": "send JSON (application/json)"}, status=415)
    try:
        asked = parse_new_game(request.body)
    except ValidationError as invalid:
        return JsonResponse({"detail": f"not a game request: {invalid}"[:500]}, status=422)
    world = Room.objects.filter(name=asked.world_slug, open_to_all=True).first()
    if world is None or genre_of(world) != asked.genre_slug:
        return JsonResponse({"detail": f"no world {asked.world_slug} in {asked.genre_slug}"}, status=404)
    if not (settings.TRPG_SIDEQUEST_PLAYERS_START_GAMES and asked.force_new):
        return JsonResponse(_game(world, resumed=True, player_name=asked.player_name))
    return JsonResponse(_game(_start(world), resumed=False, player_name=asked.player_name), status=201)


def _start(world: Room) -> Room:
    """A new room open to any name, in the world's genre and rule system."""
    with transaction.atomic():
        room = room_get_or_create(name=f"{world.name[:50]}-{secrets.token_hex(3)}")
        room.open_to_all, room.sidequest_genre = True, genre_of(world)
        room.save(update_fields=["open_to_all", "sidequest_genre"])
        system = TableSettings.objects.filter(room=world).values_list("system", flat=True).first()
        if system:
            TableSettings.objects.update_or_create(room=room, defaults={"system": system})
    return room


@require_GET
def game_view(request: HttpRequest, slug: str) -> JsonResponse:
    """`GET /api/games/<slug>`."""
    room = room_of_game(slug)
    if room is None:
        return JsonResponse({"detail": f"no game with slug {slug}"}, status=404)
    return JsonResponse(_game(room, resumed=True))


@require_GET
def sessions_view(request: HttpRequest) -> JsonResponse:
    """`GET /api/sessions[?genre=]`: the open rooms with someone online, and who."""
    open_rooms = Room.objects.filter(open_to_all=True).select_related("table_settings", "story")
    asked = request.GET.get("genre")
    rooms = [(room, genre_of(room)) for room in open_rooms]
    rooms = [(room, genre) for room, genre in rooms if asked in (None, genre)]
    online = coordination.online_now([room.pk for room, _genre in rooms]) if rooms else {}
    sessions = []
    for room, genre in rooms:
        members = online.get(room.pk) or []
        if not members:
            continue
        table, story, slug = (
            getattr(room, "table_settings", None),
            getattr(room, "story", None),
            game_slug(room),
        )
        sessions.append(
            {
                "session_key": slug,
                "genre": genre,
                "world": room.name,
                "session_id": slug,
                # Names only: a member's id stays inside the server (the client's ids are names too).
                "players": [{"player_id": m.name, "display_name": m.name} for m in members],
                "current_turn": 0,
                "current_location": story.scene_name if story else "",
                "turn_mode": "structured" if table and table.turn_mode == "structured" else "free_play",
            }
        )
    return JsonResponse({"sessions": sessions})
