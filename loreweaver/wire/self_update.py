"""`admin_update_server`: run the operator's update command, then
start this process again on the new code.

Updating the server is the operator's: a room keeper may ask only when the operator
allowed it (`TRPG_ALLOW_REMOTE_UPDATE`), and only `TRPG_TUI__UPDATE_COMMAND` is ever
run, never anything a client sends. On success the process stops the way SIGTERM
stops it (`loreweaver.wire.shutdown`: the turns in flight finish, every member is told
the server is restarting), then re-executes itself with the same arguments, pinned to
the WebSocket port and Iroh address it actually had, so clients reconnect to the same
URL and ticket (the Iroh secret key is kept in the data dir).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings

log = logging.getLogger(__name__)

OUTPUT_TAIL_CHARS = 4000
UPDATE_TIMEOUT_SECONDS = 900


@dataclass
class RestartPlan:
    """How to start this process again: its arguments and environment, with the
    addresses it bound written in."""

    argv: list[str] = field(default_factory=lambda: list(sys.argv))
    environment: dict[str, str] = field(default_factory=dict)
    # How the running server stops gracefully (its SIGTERM path), set when it starts.
    stop: Callable[[], None] | None = None
    updating: bool = False
    restart_requested: bool = False

    def websocket_bound(self, port: int) -> None:
        """Pin `--port` to the port daphne actually listens on."""
        argv = [a for a in self.argv if not a.startswith("--port=")]
        if "--port" in argv:
            index = argv.index("--port")
            del argv[index : index + 2]
        self.argv = [*argv, "--port", str(port)]

    def iroh_bound(self, address: str, address6: str = "") -> None:
        """Pin the Iroh endpoint to the addresses it actually bound (IPv6 only when its
        ticket carries it), so the restarted server's ticket is the same."""
        self.environment["TRPG_IROH__BIND"] = address
        if address6:
            self.environment["TRPG_IROH__BIND6"] = address6


plan = RestartPlan()


def begin() -> bool:
    """Claim the update (False when one is already running: one at a time)."""
    if plan.updating:
        return False
    plan.updating = True
    return True


def abandon() -> None:
    """The update failed: another may be asked for."""
    plan.updating = False


def request_restart() -> None:
    """Stop the server as SIGTERM would; once it has stopped, the serving command
    calls `restart_if_requested`. A server that registered no graceful stop restarts
    at once."""
    plan.restart_requested = True
    if plan.stop is None:
        restart()
    plan.stop()


def restart_if_requested() -> None:
    """After the server stopped: start it again if an update asked for that."""
    if plan.restart_requested:
        restart()


@dataclass(frozen=True)
class UpdateResult:
    ok: bool
    output: str


def run_update_command() -> UpdateResult:
    """Run the configured command (blocking; call it from a worker thread)."""
    command = settings.TRPG_UPDATE_COMMAND
    log.warning("self-update: running %r", command)
    try:
        finished = subprocess.run(
            command,
            shell=True,  # the operator's own command line, from the environment
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=UPDATE_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or b"").decode("utf-8", "replace")
        return UpdateResult(
            False, (output + f"\n(timed out after {UPDATE_TIMEOUT_SECONDS} s)")[-OUTPUT_TAIL_CHARS:]
        )
    output = finished.stdout.decode("utf-8", "replace")[-OUTPUT_TAIL_CHARS:]
    return UpdateResult(finished.returncode == 0, output)


def restart() -> None:
    """Replace this process with a fresh one on the same addresses (never returns)."""
    log.warning("self-update: restarting as %s", " ".join(plan.argv))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *plan.argv], {**os.environ, **plan.environment})
