"""`manage.py mint_key --room R --name N [--role player|keeper]`."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rooms.services import KeyAdminError, key_mint


class Command(BaseCommand):
    help = "Mint an access key. The key is printed once, as the last line, and never stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--room", required=True, help="room the key joins")
        parser.add_argument("--name", required=True, help="the member's display name")
        parser.add_argument("--role", choices=["player", "keeper"], default="player")

    def handle(self, *args: object, room: str, name: str, role: str, **options: object) -> None:
        try:
            minted = key_mint(room=room, name=name, role=role)
        except KeyAdminError as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(
            f"Minted a {role} key for {minted.access_key.name} in room "
            f"{minted.access_key.room.name}. It is shown once; store it now."
        )
        self.stdout.write(minted.key)
