"""`manage.py mint_key --room R --name N [--role player|keeper] [--expires-in SECONDS]
[--purpose join|chat_bind] [--sidequest-genre GENRE]`."""

from __future__ import annotations

import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rooms.models import SIDEQUEST_GENRES
from rooms.services import KeyAdminError, key_mint, room_name_to_use, set_sidequest_genre


class Command(BaseCommand):
    help = "Mint an access key. The key is printed once, as the last line, and never stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--room", required=True, help="room the key joins")
        parser.add_argument("--name", required=True, help="the member's display name")
        parser.add_argument("--role", choices=["player", "keeper"], default="player")
        parser.add_argument("--purpose", choices=["join", "chat_bind"], default="join")
        parser.add_argument(
            "--expires-in",
            type=int,
            default=None,
            help="seconds the key lives (60 to 30 days); forever if left out",
        )
        parser.add_argument(
            "--sidequest-genre",
            choices=SIDEQUEST_GENRES,
            default=None,
            help="also list the room to SideQuest clients under this genre (docs/sidequest.md)",
        )

    def handle(
        self,
        *args: object,
        room: str,
        name: str,
        role: str,
        purpose: str,
        expires_in: int | None,
        sidequest_genre: str | None,
        **options: object,
    ) -> None:
        try:
            room = room_name_to_use(room)
            minted = key_mint(room=room, name=name, role=role, purpose=purpose, expires_in=expires_in)
        except KeyAdminError as exc:
            raise CommandError(str(exc)) from None
        if sidequest_genre:
            set_sidequest_genre(minted.access_key.room, sidequest_genre)
        access_key = minted.access_key
        kind = "chat_bind token" if purpose == "chat_bind" else f"{role} key"
        expiry = (
            f" It expires at {access_key.expires_at.astimezone(datetime.UTC):%Y-%m-%dT%H:%M:%SZ}."
            if access_key.expires_at
            else ""
        )
        self.stderr.write(
            f"Minted a {kind} for {access_key.name} in room {access_key.room.name}.{expiry} "
            "It is shown once; store it now."
        )
        self.stdout.write(minted.key)
