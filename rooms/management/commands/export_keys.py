"""`manage.py export_keys FILE`: every key, as digests, in keys.toml layout."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from rooms.services import keys_export_toml


class Command(BaseCommand):
    help = "Export access keys as SHA-256 digests (not usable as keys) in keys.toml layout."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: object, file: Path, **options: object) -> None:
        count = keys_export_toml(file)
        self.stdout.write(
            f"Wrote {count} key(s) to {file} as SHA-256 digests, not keys: the file cannot be "
            "used to join, but import_keys on another loreweaver-django server restores them."
        )
