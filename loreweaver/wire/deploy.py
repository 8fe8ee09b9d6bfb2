"""What a server refuses to start without: a migrated database, and on the hosted
profile the settings that, left at their defaults, would be unsafe on the internet
(`serve` and `iroh_serve` ask first); what it warns about as it starts (a system
check). Also how to name this Python in a hint that a person will paste."""

from __future__ import annotations

import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import checks
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor

DEFAULT_SECRETS = ("change-me-in-production", "changeme", "secret", "django-insecure")
SHORTEST_SECRET = 32


def hosted_problems() -> list[str]:
    """Why this hosted process must not start (empty: it may). The embedded profile
    (no `DATABASE_URL`) keeps its generated secret and answers any host."""
    if not settings.DATABASE_URL:
        return []
    problems = []
    # Read as the settings read them (base/env.py: names in any case, spaces dropped, a
    # blank list empty), so what is checked is what the server runs with.
    secret = "" if settings.SECRET_KEY_GENERATED else settings.SECRET_KEY
    if not secret:
        problems.append(
            "DJANGO_SECRET_KEY is not set: every process of a hosted table needs the same secret. Set it "
            'to a long random value: python -c "import secrets; print(secrets.token_urlsafe(50))".'
        )
    elif secret.lower().startswith(DEFAULT_SECRETS) or len(secret) < SHORTEST_SECRET:
        problems.append(
            f"DJANGO_SECRET_KEY is a default or shorter than {SHORTEST_SECRET} characters: admin sessions "
            "and signed links would be forgeable. Set a long random value (secrets.token_urlsafe(50))."
        )
    if settings.ALLOWED_HOSTS_DEFAULTED or not settings.ALLOWED_HOSTS:
        problems.append(
            "DJANGO_ALLOWED_HOSTS is not set: name the host names the table is served under, comma-separated "
            "(e.g. DJANGO_ALLOWED_HOSTS=table.example.org,localhost)."
        )
    return problems


def proxy_listed(app_configs: object = None, **kwargs: object) -> list[checks.CheckMessage]:
    """A system check (run by `check` and as every command starts): behind the TLS proxy
    with no proxy in `TRPG_TRUSTED_PROXIES`, every client that comes through the proxy
    is one address (loreweaver/ops/forwarded.py)."""
    if not settings.TRPG_BEHIND_TLS_PROXY or settings.TRPG_TRUSTED_PROXIES:
        return []
    return [
        checks.Warning(
            "TRPG_BEHIND_TLS_PROXY is on but TRPG_TRUSTED_PROXIES lists no proxy: every client that "
            "comes through the proxy counts as one address, for the connection places per address, "
            "the wrong-key backoff and the admin lockout.",
            hint="Set TRPG_TRUSTED_PROXIES to the proxy's address as the table sees it: 172.30.57.10 for "
            "docker-compose.yml's proxy, 127.0.0.1 for one on the same host.",
            id="loreweaver.W001",
        )
    ]


def python_command() -> str:
    """This interpreter as a person would type it here: `.venv/bin/python` when it lies
    under the working directory, else its full path."""
    executable = Path(sys.executable)
    try:
        return str(executable.relative_to(Path.cwd()))
    except ValueError:
        return str(executable)


def unmigrated_problem() -> str | None:
    """Why the database cannot be served yet (migrations not applied, or it cannot be
    reached), with the command that fixes it; None when it is ready."""
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as failed:
        return f"The database cannot be read ({failed}). Check DATABASE_URL and TRPG_DATA_DIR."
    if not pending:
        return None
    return (
        f"The database is not migrated ({len(pending)} migration(s) to apply). "
        f"Run: {python_command()} manage.py migrate"
    )


def has_superuser() -> bool:
    """Whether someone can already log in to the console (the start then stops telling
    the operator to create the first login)."""
    return get_user_model().objects.filter(is_superuser=True, is_active=True).exists()
