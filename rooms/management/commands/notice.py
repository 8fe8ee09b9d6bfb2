"""`manage.py notice --room R TEXT`: show a line to everyone in a room now."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from base.i18n import Refusal
from rooms.models import Room
from rooms.services import room_notice


class Command(BaseCommand):
    help = "Show TEXT to every member of a room now, as a system line (live only, not kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--room", required=True, help="the room's name")
        parser.add_argument("text", nargs="+", help="what to say")

    def handle(self, *args: object, room: str, text: list[str], **options: object) -> None:
        found = Room.objects.filter(name=room).first()
        if found is None:
            raise CommandError(f"No room is named {room!r}.")
        try:
            reached = room_notice(found, " ".join(text))
        except Refusal as exc:
            raise CommandError(str(exc)) from None
        if reached:
            self.stdout.write(f"Shown in {found.name} by {reached} server process(es).")
        else:
            self.stdout.write(
                f"No server process reached has members in {found.name} now: nobody saw it. "
                "(An embedded server is reached only from inside its own process.)"
            )
