"""`manage.py serve`: the embedded all-in-one server (daphne + the Iroh endpoint)."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections

from base.version import PROTOCOL_VERSION, VERSION
from loreweaver.wire import deploy, self_update
from loreweaver.wire.iroh_carrier import TICKET_FILE, IrohCarrier
from loreweaver.wire.server import TableServer
from packs.services import install_bundled
from rooms.keystore import bootstrap_keeper_key, import_configured_keys


class Banner:
    """Prints the addresses once every carrier is up, so the last line means ready."""

    def __init__(self, *, expect_ticket: bool, keeper_line: str | None, first_login: bool) -> None:
        self.address: str | None = None
        self.ticket: str | None = None
        self.expect_ticket = expect_ticket
        self.keeper_line = keeper_line
        self.first_login = first_login
        self.printed = False

    def websocket_ready(self, address: str) -> None:
        self.address = address
        self._maybe_print()

    def iroh_ready(self, ticket: str) -> None:
        self.ticket = ticket
        self._maybe_print()

    def _maybe_print(self) -> None:
        if self.printed or self.address is None or (self.expect_ticket and self.ticket is None):
            return
        self.printed = True
        lines = [
            f"loreweaver-django {VERSION} (protocol {PROTOCOL_VERSION}); data in {settings.DATA_DIR}",
            f"WebSocket: ws://{self.address}/",
            f"Browser table: http://{self.address}/",
        ]
        if self.ticket is not None:
            lines.append(f"Iroh ticket: {self.ticket}")
            lines.append(f"  (also saved to {settings.DATA_DIR / TICKET_FILE})")
        python = deploy.python_command()
        admin = f"http://{self.address}/admin/"
        if self.first_login:
            lines.append(f"Admin: {admin}  (first login: {python} manage.py createsuperuser)")
        else:
            lines.append(f"Admin: {admin}")
        lines.append(
            self.keeper_line
            or f"Keys: mint one with {python} manage.py mint_key --room <room> --name <name> [--role keeper]"
        )
        lines.append("Ready. Stop with Ctrl-C.")
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


class Command(BaseCommand):
    help = "Run the table: WebSocket (daphne) and Iroh in one process, and print how to join."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="WebSocket/HTTP interface")
        parser.add_argument("--port", type=int, default=8765, help="WebSocket/HTTP port (0 = any)")
        parser.add_argument("--no-iroh", action="store_true", help="do not start the Iroh carrier")
        parser.add_argument(
            "--iroh-no-relay", action="store_true", help="Iroh without relays (LAN play, tests)"
        )

    def handle(
        self, *args: object, host: str, port: int, no_iroh: bool, iroh_no_relay: bool, **options: object
    ) -> None:
        problems = deploy.hosted_problems()
        if problems:
            raise CommandError("This hosted server will not start:\n- " + "\n- ".join(problems))
        unmigrated = deploy.unmigrated_problem()
        if unmigrated:
            raise CommandError(unmigrated)
        imported = import_configured_keys()
        if imported:
            self.stdout.write(imported)
        if settings.TRPG_PACKS_BUNDLED:
            for pack in install_bundled():
                self.stdout.write(
                    f"Installed the bundled pack {pack.pack_id} {pack.version} (enabled in no room)."
                )
        minted = bootstrap_keeper_key()
        keeper_line = None
        if minted is not None:
            keeper_line = (
                f'Keeper key for room "{minted.access_key.room.name}" (shown once, store it now): '
                f"{minted.key}"
            )
        banner = Banner(
            expect_ticket=not no_iroh, keeper_line=keeper_line, first_login=not deploy.has_superuser()
        )
        carrier = None
        if not no_iroh:
            carrier = IrohCarrier(
                data_dir=settings.DATA_DIR,
                relay=not iroh_no_relay and settings.TRPG_IROH_RELAY == "on",
                bind=settings.TRPG_IROH_BIND,
                bind6=settings.TRPG_IROH_BIND6,
                join_timeout=settings.TRPG_JOIN_TIMEOUT,
                on_ticket=banner.iroh_ready,
            )
        # The startup's database work is done: hosted, its connection goes back to the
        # pool (the event loop on this thread touches the database again only for the
        # brief turns it commits on an SQLite file: loreweaver/wire/commits.py).
        close_old_connections()
        server = TableServer(host=host, port=port, on_ready=banner.websocket_ready, iroh_carrier=carrier)
        server.run()
        if server.listen_failure:
            raise CommandError(
                f"{server.listen_failure.rstrip('.')}. Another server may be using the "
                f'port: stop it, or choose another one, as in make serve ARGS="--port {port + 1}" '
                f"(or manage.py serve --port {port + 1})."
            )
        # Stopped for an update (`admin_update_server`): start again on the new code.
        self_update.restart_if_requested()
