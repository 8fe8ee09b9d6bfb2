"""Guests: the seats strangers take in a room its operator opened to any name.

A SideQuest client joins such a room without a key, with only the name its player
typed. The name says who the guest wants to be called, never who they are: the server
gives each browser a secret the first time it connects (the `lw_guest` cookie,
docs/sidequest.md "Guests"), and a guest's seat is an access key derived from that
secret and the room. The same browser is the same member (and character) at every
visit; another browser typing the same name gets nothing of theirs.

- A name already held in the room (by a guest, a keyed member or a keeper) is refused,
  compared after Unicode normalisation with invisible characters removed, so neither
  "WREN", " wren " nor "Wren" with a zero-width space is Wren.
- A seat unused for `TRPG_GUESTS__IDLE_DAYS` expires (its character stays in the room);
  a room holds at most `TRPG_GUESTS__PER_ROOM` live guest seats; each address may make
  `TRPG_GUESTS__NEW_PER_ADDRESS` new seats an hour (counted by the carrier).
- A revoked seat stays revoked: its digest is remembered (`GuestRevocation`), so the
  browser cannot take it again under any name; an operator's Disconnect holds on the
  seat's key like any key's.
- Games started from the lobby count against `TRPG_SIDEQUEST__PLAYER_GAMES`; one that
  nobody ever played in is given up after a day when a new one needs its place.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
from http.cookies import CookieError, SimpleCookie

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from base.i18n import Refusal, _
from base.names import same_name_key, shown_name
from rooms.keys import key_digest, mask_key, member_id_for
from rooms.models import AccessKey, GuestRevocation, Purpose, Role, Room, TranscriptEntry

GUEST_COOKIE = "lw_guest"
# Browsers keep a cookie for at most 400 days.
GUEST_COOKIE_SECONDS = 400 * 24 * 3600
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
NAME_MAX = 64


class GuestRefused(Refusal):
    """A guest that may not sit down as asked; `code` says why (`not_open`, `bad_name`,
    `name_taken`, `revoked`, `room_full`), `message(locale)` says it in words."""

    def __init__(self, code: str, text: str, **values: object) -> None:
        super().__init__(text, **values)
        self.code = code


class NewSeatNeeded(Exception):
    """The browser has no seat in the room yet, and the caller did not allow one to be made."""


# --- the browser's secret ----------------------------------------------------------------


def new_guest_token() -> str:
    """A fresh browser secret (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def guest_token_from(cookie_header: str) -> str | None:
    """The browser secret in a `Cookie` header, if it carries a well-formed one."""
    try:
        cookies = SimpleCookie(cookie_header)
    except CookieError:
        return None
    morsel = cookies.get(GUEST_COOKIE)
    return morsel.value if morsel is not None and _TOKEN.match(morsel.value) else None


def guest_cookie(token: str) -> str:
    """The `Set-Cookie` value that gives a browser its secret: script cannot read it,
    other sites' pages cannot send it, and it is sent over HTTPS only behind TLS."""
    secure = "; Secure" if settings.TRPG_BEHIND_TLS_PROXY else ""
    return f"{GUEST_COOKIE}={token}; Max-Age={GUEST_COOKIE_SECONDS}; Path=/; HttpOnly; SameSite=Lax{secure}"


def _seat_key(room_id: int, token: str) -> str:
    """The seat's key: from the server's secret, the room and the browser's secret, so
    it is never stored, and is worth nothing in another room."""
    mac = hmac.new(settings.SECRET_KEY.encode(), f"guest-seat:{room_id}:{token}".encode(), hashlib.sha256)
    return "guest-" + mac.hexdigest()


def _name_derived_digest(room_id: int, name: str) -> str:
    """The digest of a seat as it was made before seats were bound to a browser (from
    the typed name alone)."""
    derived = f"guest:{room_id}:{name.casefold()}".encode()
    return key_digest("guest-" + hmac.new(settings.SECRET_KEY.encode(), derived, hashlib.sha256).hexdigest())


# --- names -------------------------------------------------------------------------------


def _clean_guest_name(typed: str) -> str:
    name = shown_name(typed)
    if not name or len(name) > NAME_MAX:
        raise GuestRefused("bad_name", _("Choose a name of 1 to {limit} visible characters."), limit=NAME_MAX)
    return name


# --- seats -------------------------------------------------------------------------------


def guest_seat(*, room_name: str, name: str, token: str, may_create: bool = True) -> str:
    """The key of the seat (never shown to anyone) the browser holding `token` takes in
    the open room `room_name`, under `name`: its own seat (renamed when it typed another
    free name), or a new one (`NewSeatNeeded` unless `may_create`). `GuestRefused` says
    why it may not sit."""
    if not _TOKEN.match(token):
        raise ValueError("not a browser secret")
    now = timezone.now()
    with transaction.atomic():
        # The room's row is locked so that two browsers claiming one name take turns.
        room = Room.objects.select_for_update().filter(name=room_name, open_to_all=True).first()
        if room is None:
            raise GuestRefused(
                "not_open", _("There is no table called {room} open to guests."), room=room_name
            )
        wanted = _clean_guest_name(name)
        compared = same_name_key(wanted)
        key = _seat_key(room.pk, token)
        digest = key_digest(key)
        if GuestRevocation.objects.filter(digest=digest).exists():
            raise GuestRefused("revoked", _("The keeper has closed this table to you."))
        keys = list(AccessKey.objects.filter(room=room, purpose=Purpose.JOIN))
        mine = next((held for held in keys if held.digest == digest), None)
        holder = next(
            (
                held
                for held in keys
                if held is not mine and not held.expired(now) and same_name_key(held.name) == compared
            ),
            None,
        )
        if holder is not None:
            if mine is None and holder.guest and holder.digest == _name_derived_digest(room.pk, holder.name):
                # A seat made from its name alone: the first browser to claim the name
                # takes it over, character and all (once; it is bound to that browser now).
                holder.digest, holder.key_masked = digest, mask_key(key)
                mine, holder = holder, None
            else:
                raise GuestRefused(
                    "name_taken",
                    _("Someone at this table is already called {name}; choose another name."),
                    name=wanted,
                )
        expires_at = now + datetime.timedelta(days=settings.TRPG_GUESTS_IDLE_DAYS)
        if mine is not None:
            mine.name, mine.expires_at = wanted, expires_at
            mine.save(update_fields=["digest", "key_masked", "name", "expires_at"])
            return key
        if not may_create:
            raise NewSeatNeeded()
        guests_prune(room=room, now=now)
        seated = AccessKey.objects.filter(room=room, guest=True).count()
        if seated >= settings.TRPG_GUESTS_PER_ROOM:
            raise GuestRefused(
                "room_full",
                _("This table has no free seat for guests ({limit} taken); ask its keeper for a key."),
                limit=settings.TRPG_GUESTS_PER_ROOM,
            )
        AccessKey.objects.create(
            room=room,
            digest=digest,
            member_id=member_id_for(key),
            key_masked=mask_key(key),
            name=wanted,
            role=Role.PLAYER,
            purpose=Purpose.JOIN,
            expires_at=expires_at,
            guest=True,
        )
    return key


def guests_revoke(keys: list[AccessKey]) -> None:
    """Remember these guest seats as revoked (their keys are being deleted), so their
    browsers cannot take them again."""
    GuestRevocation.objects.bulk_create(
        [GuestRevocation(room_id=key.room_id, digest=key.digest, name=key.name) for key in keys if key.guest],
        ignore_conflicts=True,
    )


def guests_prune(*, room: Room | None = None, now: datetime.datetime | None = None) -> int:
    """Delete the guest seats that expired unused (all rooms', or `room`'s); how many.
    Their characters stay in the room; the browser gets a new seat if it comes back."""
    expired = AccessKey.objects.filter(guest=True, expires_at__lte=now or timezone.now())
    if room is not None:
        expired = expired.filter(room=room)
    return expired.delete()[0]


# --- games started from the lobby --------------------------------------------------------

# A game nobody played in may be given up this long after it was started.
UNPLAYED_GAME_KEPT = datetime.timedelta(days=1)


def player_game_room(*, world_name: str, genre: str) -> Room:
    """A new room for a game a player starts from the lobby, in `genre`: open to any
    name, named after the world (`world_name`) with a random suffix. `GuestRefused` when the
    server already holds `TRPG_SIDEQUEST__PLAYER_GAMES` of them (after giving up the
    oldest games nobody played in, if any)."""
    with transaction.atomic():
        started = Room.objects.select_for_update().filter(started_by_player=True)
        if started.count() >= settings.TRPG_SIDEQUEST_PLAYER_GAMES:
            unplayed = (
                started.filter(created_at__lte=timezone.now() - UNPLAYED_GAME_KEPT)
                .exclude(pk__in=TranscriptEntry.objects.values("room_id"))
                .order_by("created_at")
            )
            oldest = unplayed.first()
            if oldest is None:
                raise GuestRefused(
                    "games_full",
                    _("This server holds as many games as players may start ({limit}); join one of them."),
                    limit=settings.TRPG_SIDEQUEST_PLAYER_GAMES,
                )
            oldest.delete()
        return Room.objects.create(
            name=f"{world_name[:50]}-{secrets.token_hex(3)}",
            open_to_all=True,
            sidequest_genre=genre,
            started_by_player=True,
        )
