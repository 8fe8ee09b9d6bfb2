"""The current SideQuest client's lobby (docs/sidequest.md, "The two client generations"):
`POST /api/games`, `GET /api/games/<slug>` and `GET /api/sessions` (always answered),
and `/api/genres` in the shape of the generation `TRPG_SIDEQUEST__CLIENT` names.

A game is a room open to any name; its slug names the room and carries a token made
from the server's secret key, so a slug cannot be guessed from a room's name: only the
lobby hands it out, and only for rooms the operator opened."""

from __future__ import annotations

import hashlib
import hmac

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.utils import translation
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from pydantic import ValidationError

from base.i18n import _, say
from keeper.sidequest_services import OpenRoom, open_room, open_rooms, start_game
from loreweaver.wire import coordination
from loreweaver.wire.protocol.sidequest import parse_new_game
from loreweaver.wire.sidequest_table import allowed_per_hour, genres
from rooms.choices import Role
from rooms.guests import GuestRefused
from rooms.sidequest_services import turns_played


def game_slug(room: OpenRoom) -> str:
    """The slug the current client names `room` by: readable, and unguessable."""
    token = hmac.new(settings.SECRET_KEY.encode(), f"sidequest-game:{room.id}".encode(), hashlib.sha256)
    return f"{slugify(room.name) or 'room'}-{token.hexdigest()[:16]}"


def room_of_game(slug: str) -> OpenRoom | None:
    """The open room `slug` names (None for any other slug, or a room since closed)."""
    for room in open_rooms():
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
    for room in open_rooms():
        entry = listed.setdefault(
            room.genre, {"name": room.genre.replace("_", " ").title(), "description": "", "worlds": []}
        )
        entry["worlds"].append(
            {
                "slug": room.name,
                "name": room.name,
                "description": room.module_title,
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


def _game(room: OpenRoom, *, resumed: bool, player_name: str | None = None) -> dict:
    return {
        "slug": game_slug(room),
        "mode": "multiplayer",
        "genre_slug": room.genre,
        "world_slug": room.name,
        "resumed": resumed,
        "player_name": player_name,
    }


# Any address may ask for a game this often: a burst of twice a member's input burst,
# then one every three input refills (10, then one every 6 s by default; off where the
# input limits are off, TRPG_RATE__REFILL_SECONDS=0).
LOBBY_BURST_TIMES, LOBBY_REFILL_TIMES = 2, 3.0


def _locale(request: HttpRequest) -> str:
    return "zh" if translation.get_language_from_request(request).startswith("zh") else "en"


def _too_many(request: HttpRequest, text: str, **values: object) -> JsonResponse:
    """429, saying why in the asker's language (the lobby shows `detail`)."""
    answer = JsonResponse({"detail": say(_locale(request), text, **values)}, status=429)
    answer["Retry-After"] = "60"
    return answer


@csrf_exempt  # no cookie acts here: a keyless lobby; JSON only, which a cross-site form cannot send
@require_POST
async def games_view(request: HttpRequest) -> JsonResponse:
    """`POST /api/games`: the game of a world. It is the world's open room, or, where the
    operator lets players start games and the client asks for a new one, a room of its
    own in the world's genre and rule system (a few an hour per address, and at most
    `TRPG_SIDEQUEST__PLAYER_GAMES` in all: 429 beyond)."""
    if request.content_type != "application/json":
        return JsonResponse({"detail": "send JSON (application/json)"}, status=415)
    try:
        asked = parse_new_game(request.body)
    except ValidationError as invalid:
        return JsonResponse({"detail": f"not a game request: {invalid}"[:500]}, status=422)
    address = request.META.get("REMOTE_ADDR", "")
    if not await coordination.shared().take_tokens(
        [f"lobby:{address}"],
        burst=LOBBY_BURST_TIMES * settings.TRPG_RATE_BURST,
        refill_seconds=LOBBY_REFILL_TIMES * settings.TRPG_RATE_REFILL_SECONDS,
    ):
        return _too_many(request, _("Too many requests from your address; wait a minute and try again."))
    world = await sync_to_async(open_room)(asked.world_slug)
    if world is None or world.genre != asked.genre_slug:
        return JsonResponse({"detail": f"no world {asked.world_slug} in {asked.genre_slug}"}, status=404)
    if not (settings.TRPG_SIDEQUEST_PLAYERS_START_GAMES and asked.force_new):
        return JsonResponse(_game(world, resumed=True, player_name=asked.player_name))
    per_hour = settings.TRPG_SIDEQUEST_GAMES_PER_ADDRESS
    if not await allowed_per_hour("new-game", address, per_hour):
        return _too_many(
            request, _("You started {count} games this hour; join one of them, or try later."), count=per_hour
        )
    try:
        started = await sync_to_async(start_game)(world)
    except GuestRefused as full:
        return _too_many(request, full.text, **full.values)
    return JsonResponse(_game(started, resumed=False, player_name=asked.player_name), status=201)


@require_GET
def game_view(request: HttpRequest, slug: str) -> JsonResponse:
    """`GET /api/games/<slug>`."""
    room = room_of_game(slug)
    if room is None:
        return JsonResponse({"detail": f"no game with slug {slug}"}, status=404)
    return JsonResponse(_game(room, resumed=True))


@require_GET
async def sessions_view(request: HttpRequest) -> JsonResponse:
    """`GET /api/sessions[?genre=]`: the open rooms with a player online, and the players
    (what a lobby shows; keepers are never listed, and closed rooms never named)."""
    rooms = await sync_to_async(_open_rooms)(request.GET.get("genre"))
    shared = coordination.shared()
    sessions = []
    for room in rooms:
        players = [m for m in await shared.online_members(room.id) if m.role != Role.KEEPER]
        if not players:
            continue
        slug = game_slug(room)
        sessions.append(
            {
                "session_key": slug,
                "genre": room.genre,
                "world": room.name,
                "session_id": slug,
                # Names only: a member's id stays inside the server (the client's ids are names too).
                "players": [{"player_id": m.name, "display_name": m.name} for m in players],
                "current_turn": await sync_to_async(turns_played)(room.id),
                "current_location": room.scene_name,
                "turn_mode": "structured" if room.structured else "free_play",
            }
        )
    return JsonResponse({"sessions": sessions})


def _open_rooms(genre: str | None) -> list[OpenRoom]:
    """The open rooms (of `genre`, when asked)."""
    return [room for room in open_rooms() if genre in (None, room.genre)]
