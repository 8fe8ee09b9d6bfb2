"""A fork server for the test suites' server processes: `manage.py serve` and the other
management commands the tests run, started by forking a process that has already
imported the libraries they load, instead of a fresh interpreter each time.

The suites start about two hundred servers and run about seventy other commands; a
fresh interpreter spends half of a server's start importing Django, Twisted, pydantic,
cryptography and the rest, the same work every time. The fork server imports those
once (modules that load without settings: it never reads the project's settings or
environment, opens a database, starts a thread or an event loop), freezes them out of
the garbage collector's sight, then forks a child per command. The child takes the
command's environment, working directory and standard streams, and runs `manage.py` as
`python manage.py` would, so it reads its settings and imports the rest of the
project's code afresh: what runs is the server a fresh process runs, started sooner.

A child is the fork server's, not the test's, so the test holds a `ForkedProcess`,
which stands in for `subprocess.Popen`: the fork server tells it the child's pid, and
its exit status when it ends. The fork server dies with its test process (its stdin
closes), killing any child still running.

Run as `python -m loreweaver.testing.forkserver SOCKET`; `spawn` and `run` start it
on first use, one per test process. The benchmarks start servers the ordinary way.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

# What a server or a command imports that loads without settings, roughly largest
# first; each pulls in its own dependencies. Iroh loads its library on import and
# starts its runtime only when first called. Of the project's own code, only
# declarations that read neither settings nor the environment as they load (the
# frames, the environment's classes), which take a server a twentieth of a second to
# build. Not here: what starts an event loop or installs a reactor on import
# (`daphne.server`, `twisted.internet.reactor`), and the rest of the project's code,
# which needs its settings.
PRELOAD = (
    "django.core.management",
    "django.core.management.base",
    "django.db.models",
    "django.db.backends.sqlite3.base",
    "base.database.sqlite.base",
    "django.db.migrations.executor",
    "django.urls",
    "django.forms",
    "django.http",
    "django.template.defaulttags",
    "django.template.loader_tags",
    "django.templatetags.i18n",
    "django.templatetags.static",
    "django.views.generic",
    "django.views.i18n",
    "django.views.debug",
    "django.middleware.csrf",
    "django.contrib.auth.hashers",
    "django.contrib.staticfiles.finders",
    "django.core.serializers.json",
    "django.core.mail",
    "channels.generic.websocket",
    "channels.layers",
    "channels.routing",
    "channels.auth",
    "channels_redis.core",
    "channels_redis.pubsub",
    "asgiref.sync",
    "twisted.internet.asyncioreactor",
    "twisted.internet.endpoints",
    "twisted.web.http",
    "autobahn.twisted.websocket",
    "daphne.ws_protocol",
    "daphne.http_protocol",
    "daphne.access",
    "daphne.endpoints",
    "redis",
    "redis.asyncio",
    "psycopg",
    "psycopg_pool",
    "cryptography.x509",
    "cryptography.hazmat.primitives.ciphers.aead",
    "OpenSSL",
    "service_identity",
    "pydantic",
    "pydantic_settings",
    "yaml",
    "sqlparse",
    "prometheus_client",
    "msgpack",
    "cbor2",
    "defusedxml.ElementTree",
    "tomli_w",
    "d20",
    "openai",
    "httpx",
    "whitenoise.middleware",
    "axes.helpers",
    "storages.backends.s3",
    "boto3",
    "email.mime.multipart",
    "iroh",
    "base.env",
    "loreweaver.wire.protocol.inbound",
    "loreweaver.wire.protocol.messages",
    "loreweaver.wire.protocol.sidequest",
)

_lock = threading.Lock()
_server: _ForkServer | None = None


class ForkedProcess:
    """A child of the fork server, as a test sees it: what `subprocess.Popen` offers
    (`pid`, `stdout`, `poll`, `wait`, `send_signal`, `terminate`, `kill`, `returncode`)."""

    def __init__(self, connection: socket.socket, pid: int, stdout: io.TextIOBase | None) -> None:
        self._connection = connection
        self._answer = b""
        self.pid = pid
        self.stdout = stdout
        self.stderr_fd: int | None = None  # the read end of a piped stderr
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status if the child has ended, else None."""
        if self.returncode is None:
            self._read(blocking=False)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the child to end (`subprocess.TimeoutExpired` after `timeout`)."""
        if self.returncode is None:
            self._connection.settimeout(timeout)
            try:
                self._read(blocking=True)
            except TimeoutError:
                raise subprocess.TimeoutExpired(f"forked {self.pid}", timeout) from None
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, number: int) -> None:
        """Signal the child, unless it has already ended."""
        if self.poll() is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _read(self, *, blocking: bool) -> None:
        if not blocking:
            self._connection.setblocking(False)
        try:
            while b"\n" not in self._answer:
                chunk = self._connection.recv(4096)
                if not chunk:
                    raise RuntimeError("the fork server went away")
                self._answer += chunk
        except BlockingIOError:
            return
        self.returncode = json.loads(self._answer)["returncode"]
        self._connection.close()


def spawn(argv: list[str], env: dict[str, str], cwd: Path, *, stdout=None, stderr=None) -> ForkedProcess:
    """Run `python *argv` in a fork of the fork server (started on first use), with
    `env` as its whole environment. `stdout` and `stderr` are `subprocess.PIPE`, a
    file, or None for the test's own; its stdin reads nothing."""
    own: list[int] = []  # the ends of our pipes the child holds: ours to close after
    piped: dict[str, int] = {}
    fds = [os.open(os.devnull, os.O_RDONLY)]
    own.append(fds[0])
    for name, target, default in (("stdout", stdout, 1), ("stderr", stderr, 2)):
        if target is subprocess.PIPE:
            read_end, write_end = os.pipe()
            piped[name] = read_end
            own.append(write_end)
            fds.append(write_end)
        else:
            fds.append(default if target is None else target.fileno())
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(str(_fork_server().path))
        request = json.dumps({"argv": argv, "env": env, "cwd": str(cwd)}).encode() + b"\n"
        socket.send_fds(connection, [request], fds)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = connection.recv(4096)
            if not chunk:
                raise RuntimeError("the fork server did not start the command")
            answer += chunk
    finally:
        for fd in own:
            os.close(fd)
    out = open(piped["stdout"], encoding="utf-8", errors="replace") if "stdout" in piped else None  # noqa: SIM115
    process = ForkedProcess(connection, json.loads(answer)["pid"], out)
    process.stderr_fd = piped.get("stderr")
    return process


def run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """`subprocess.run(..., capture_output=True, text=True)` in a fork."""
    process = spawn(argv, env, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr_fd is not None
    captured = {process.stdout.fileno(): bytearray(), process.stderr_fd: bytearray()}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in captured:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                process.kill()
                raise subprocess.TimeoutExpired(argv, timeout)
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    captured[key.fd] += chunk
                else:
                    selector.unregister(key.fd)
    process.stdout.close()
    os.close(process.stderr_fd)
    code = process.wait(max(deadline - time.monotonic(), 1.0))
    out, err = (bytes(data).decode("utf-8", "replace") for data in captured.values())
    return subprocess.CompletedProcess(argv, code, out, err)


class _ForkServer:
    """The running fork server, seen from the test process that started it."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="lw-fork-")) / "socket"
        environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "loreweaver.testing.forkserver", str(self.path)],
            cwd=Path(__file__).resolve().parents[2],
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != b"ready":
            raise RuntimeError("the fork server did not start")
        atexit.register(self.stop)

    def stop(self) -> None:
        """Close its stdin: it kills what still runs and exits."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(10)


def _fork_server() -> _ForkServer:
    global _server
    with _lock:
        if _server is None:
            _server = _ForkServer()
        return _server


# The fork server's side.


def _serve(path: str) -> None:
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # a library this checkout lacks; the child imports it if needed
            continue
    # The children never free what was imported here; frozen, it is not walked by each
    # child's collections (which took about a third of a server's start) or copied
    # into the child's memory by them.
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, the test's connection)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                if not os.read(key.fd, 4096):  # the test process has gone
                    for pid, _connection in children.values():
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    return
            elif key.data == "accept":
                connection, _ = listener.accept()
                theirs = [c.fileno() for _, c in children.values()]
                pid = _fork(connection, [listener.fileno(), selector.fileno(), 0, *children, *theirs])
                connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, connection)
                selector.register(pidfd, selectors.EVENT_READ, "child")
            else:
                pid, connection = children.pop(key.fd)
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
                with contextlib.suppress(OSError):  # unless the test no longer listens
                    connection.sendall(json.dumps({"returncode": code}).encode() + b"\n")
                connection.close()


def _fork(connection: socket.socket, inherited: list[int]) -> int:
    """Fork a child for the request on `connection`; the parent gets its pid."""
    message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    while not message.endswith(b"\n"):
        message += connection.recv(1 << 20)
    request = json.loads(message)
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    code = 1
    try:
        for fd in inherited:
            os.close(fd)
        code = _become(request, fds, connection)
    except BaseException:  # the child must never return into the fork server's loop
        traceback.print_exc()
    finally:
        os._exit(code)


def _become(request: dict, fds: list[int], connection: socket.socket) -> int:
    """In the child: take the command's streams, directory and environment, run it as
    `python manage.py ...` would, shut down as the interpreter would, and say the
    exit status."""
    connection.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = _text_stream(1, unbuffered, line_buffering=False)
    sys.stderr = _text_stream(2, unbuffered, line_buffering=True)
    script = Path(request["cwd"]) / request["argv"][0]
    sys.argv = list(request["argv"])
    sys.path[0] = str(script.parent)
    code = 0
    interrupted = False
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit:
        code = _exit_code(exit)
    except KeyboardInterrupt:
        traceback.print_exc()
        interrupted = True
    except BaseException:  # as the interpreter reports an uncaught error
        traceback.print_exc()
        code = 1
    threading._shutdown()  # join the threads that are not daemons, as at exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if interrupted:  # as Python does: die of the signal itself
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code


def _text_stream(fd: int, unbuffered: bool, *, line_buffering: bool) -> io.TextIOWrapper:
    raw = open(fd, "wb", buffering=0 if unbuffered else -1, closefd=False)  # noqa: SIM115
    return io.TextIOWrapper(
        raw,
        encoding="utf-8",
        errors="backslashreplace" if fd == 2 else "strict",
        line_buffering=line_buffering,
        write_through=unbuffered,
    )


def _exit_code(exit: SystemExit) -> int:
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    _serve(sys.argv[1])
