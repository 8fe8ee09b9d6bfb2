"""`manage.py pack build DIR [-o FILE]`, `pack install FILE [--yes]`, `pack list`,
`pack remove ID`: content packs from the operator's shell."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from base.i18n import Refusal
from packs import lwpack, services


class Command(BaseCommand):
    help = "Build, install, list and remove content packs (.lwpack)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        build = actions.add_parser("build", help="check a pack folder and write its .lwpack")
        build.add_argument("folder", type=Path)
        build.add_argument(
            "-o", "--output", type=Path, help="the file to write (default: <id>-<version>.lwpack)"
        )
        install = actions.add_parser("install", help="check a .lwpack, show its trust card, install it")
        install.add_argument("file", type=Path)
        install.add_argument("--yes", action="store_true", help="install without asking")
        actions.add_parser("list", help="the installed packs")
        remove = actions.add_parser("remove", help="uninstall a pack")
        remove.add_argument("pack_id")

    def handle(self, *args: object, action: str, **options: object) -> None:
        try:
            getattr(self, f"_{action}")(**options)
        except Refusal as refused:
            raise CommandError(refused.message(settings.TRPG_LOCALE)) from None

    def _build(self, folder: Path, output: Path | None, **options: object) -> None:
        data = lwpack.build(folder)
        pack = lwpack.open_pack(data)  # what install will read, read the same way
        target = output or Path(f"{pack.pack_id}-{pack.version}{services.SUFFIX}")
        target.write_bytes(data)
        for line in services.trust_lines(pack.manifest, settings.TRPG_LOCALE):
            self.stdout.write(line)
        self.stdout.write(f"{target} ({len(data)} bytes)")

    def _install(self, file: Path, yes: bool, **options: object) -> None:
        if not file.is_file():
            raise CommandError(f"{file} is not a file")
        if file.stat().st_size > lwpack.MAX_ARCHIVE_BYTES:
            raise CommandError(f"{file} is larger than {lwpack.MAX_ARCHIVE_BYTES} bytes")
        data = file.read_bytes()
        pack = services.check(data)
        for line in services.trust_lines(pack.manifest, settings.TRPG_LOCALE):
            self.stdout.write(line)
        if not yes and input("Install this pack? [y/N] ").strip().lower() not in ("y", "yes"):
            self.stdout.write("Not installed.")
            return
        installed = services.install(data, by="operator")
        self.stdout.write(f"Installed {installed.pack_id} {installed.version}.")

    def _list(self, **options: object) -> None:
        packs = services.installed()
        if not packs:
            self.stdout.write("No pack is installed.")
        for pack in packs:
            self.stdout.write(f"{pack.pack_id} {pack.version}  {pack.title()}")

    def _remove(self, pack_id: str, **options: object) -> None:
        removed = services.remove(pack_id)
        self.stdout.write(f"Removed {removed.pack_id} {removed.version}.")
