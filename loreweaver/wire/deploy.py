"""What a hosted server refuses to start without: the settings that, left at their
defaults, would be unsafe on the internet (`serve` and `iroh_serve` ask first)."""

from __future__ import annotations

import os

from django.conf import settings

DEFAULT_SECRETS = ("change-me-in-production", "changeme", "secret", "django-insecure")
SHORTEST_SECRET = 32


def hosted_problems() -> list[str]:
    """Why this hosted process must not start (empty: it may). The embedded profile
    (no `DATABASE_URL`) keeps its generated secret and answers any host."""
    if not settings.DATABASE_URL:
        return []
    problems = []
    secret = os.environ.get("DJANGO_SECRET_KEY", "")
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
    if not os.environ.get("DJANGO_ALLOWED_HOSTS"):
        problems.append(
            "DJANGO_ALLOWED_HOSTS is not set: name the host names the table is served under, comma-separated "
            "(e.g. DJANGO_ALLOWED_HOSTS=table.example.org,localhost)."
        )
    return problems
