"""`manage.py import_keys FILE`: keys from a reference-format keys.toml."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rooms.services import KeyAdminError, keys_import_toml


class Command(BaseCommand):
    help = "Import access keys from a keys.toml (reference format, or one written by export_keys)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: object, file: Path, **options: object) -> None:
        try:
            report = keys_import_toml(file)
        except KeyAdminError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Imported {report.added} key(s); {report.skipped} already present. "
            "Only their digests are stored; keep or delete the file as you see fit."
        )
