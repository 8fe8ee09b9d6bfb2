"""`manage.py iroh_serve`: the Iroh carrier alone, as a sidecar beside daphne workers."""

from __future__ import annotations

import asyncio
import signal
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections
from django.utils.module_loading import import_string

from loreweaver.wire import deploy, hub, round_clock, self_update, shutdown
from loreweaver.wire.iroh_carrier import TICKET_FILE, IrohCarrier
from loreweaver.wire.process import (
    keep_the_database_threads_connection,
    report_outages_as_warnings,
    tune_garbage_collection,
)
from rooms.keystore import import_configured_keys


class Command(BaseCommand):
    help = "Run the Iroh carrier as its own process (share REDIS_URL and DATABASE_URL with web)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--iroh-no-relay", action="store_true", help="Iroh without relays (LAN play, tests)"
        )

    def handle(self, *args: object, iroh_no_relay: bool, **options: object) -> None:
        problems = deploy.hosted_problems()
        if problems:
            raise CommandError("This hosted server will not start:\n- " + "\n- ".join(problems))
        unmigrated = deploy.unmigrated_problem()
        if unmigrated:
            raise CommandError(unmigrated)
        if not settings.REDIS_URL:
            self.stderr.write(
                "Warning: REDIS_URL is not set, so this sidecar cannot share rooms with a web "
                "process; use `manage.py serve` for a single-process table."
            )
        imported = import_configured_keys()
        if imported:
            self.stdout.write(imported)
        carrier = IrohCarrier(
            data_dir=settings.DATA_DIR,
            relay=not iroh_no_relay and settings.TRPG_IROH_RELAY == "on",
            bind=settings.TRPG_IROH_BIND,
            bind6=settings.TRPG_IROH_BIND6,
            join_timeout=settings.TRPG_JOIN_TIMEOUT,
        )
        # The startup's database work is done: its connection goes back to the pool.
        close_old_connections()
        tune_garbage_collection()
        keep_the_database_threads_connection()
        asyncio.run(self._serve(carrier))
        # Stopped for an update (`admin_update_server`): start again on the new code.
        self_update.restart_if_requested()

    async def _serve(self, carrier: IrohCarrier) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        report_outages_as_warnings(loop)
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        self_update.plan.stop = stop.set
        ticket = await carrier.start()
        sys.stdout.write(f"Iroh ticket: {ticket}\n  (also saved to {settings.DATA_DIR / TICKET_FILE})\n")
        health = None
        if settings.TRPG_IROH_HEALTH_BIND:
            # The project's health port, looked up (as daphne's application is), since
            # the project sits above this layer.
            health = import_string(settings.TRPG_HEALTH_PORT)(settings.TRPG_IROH_HEALTH_BIND)
            host, port = health.server_address[:2]
            sys.stdout.write(f"Health: http://{host}:{port}/  (/healthz, /readyz, /metrics)\n")
        sys.stdout.write("Ready. Stop with Ctrl-C.\n")
        sys.stdout.flush()
        tasks = [
            asyncio.create_task(carrier.serve()),
            asyncio.create_task(hub.Upkeep().run()),
            asyncio.create_task(round_clock.RoundClock().run()),
        ]
        await stop.wait()
        carrier.stop_accepting()
        await shutdown.drain()  # turns in flight finish, members are told to reconnect
        await carrier.close()
        for task in tasks:
            task.cancel()
        if health is not None:
            health.shutdown()
