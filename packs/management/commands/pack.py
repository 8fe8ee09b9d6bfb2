"""`manage.py pack build DIR [-o FILE] [--json]`, `pack install FILE [--yes]`, `pack
list`, `pack remove ID`: content packs from the operator's shell.

`--json` is Loreweaver Studio's Pack bench's interface (`packs/build_result.py`):
stdout carries exactly one JSON line, and the trust card goes to stderr."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper

from base.i18n import Refusal
from packs import build_result, lwpack, services


class Command(BaseCommand):
    help = "Build, install, list and remove content packs (.lwpack)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        build = actions.add_parser("build", help="check a pack folder and write its .lwpack")
        build.add_argument("folder", type=Path)
        build.add_argument(
            "-o",
            "--output",
            "--out",
            type=Path,
            help="the file to write (default: <id>-<version>.lwpack)",
        )
        build.add_argument(
            "--json",
            dest="as_json",
            action="store_true",
            help="one JSON line on stdout ({ok, path, id, version, sha256, trust} or {ok, error}); "
            "the trust card on stderr",
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

    def _build(self, folder: Path, output: Path | None, as_json: bool, **options: object) -> None:
        if not as_json:
            self._built(folder, output, self.stdout)
            return
        try:  # a machine reads stdout: the one line, whatever happens
            result = build_result.built(*self._built(folder, output, self.stderr))
        except Refusal as refused:
            result = build_result.failed(refused.message(settings.TRPG_LOCALE))
        except OSError as problem:  # the folder unreadable, the file unwritable
            result = build_result.failed(f"{problem.strerror or problem}: {problem.filename or folder}")
        self.stdout.write(_json_line(result))
        if not result["ok"]:
            raise CommandError(result["error"])

    def _built(
        self, folder: Path, output: Path | None, human: OutputWrapper
    ) -> tuple[lwpack.Pack, Path, bytes]:
        """Builds the pack in `folder` into `output` (or `<id>-<version>.lwpack`), writing
        its trust card to `human`: the pack, where it went and its bytes."""
        data = lwpack.build(folder)
        pack = lwpack.open_pack(data)  # what install will read, read the same way
        target = output or Path(f"{pack.pack_id}-{pack.version}{services.SUFFIX}")
        target.write_bytes(data)
        for line in services.trust_lines(pack.manifest, settings.TRPG_LOCALE):
            human.write(line)
        human.write(f"{target} ({len(data)} bytes)")
        return pack, target, data

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


def _json_line(result: dict) -> str:
    return json.dumps(result, ensure_ascii=False)
