"""Password guessing on the operator console is throttled (docs/operations.md,
"Deploying"): after TRPG_ADMIN__LOGIN_FAILURES failed logins for one user name from one
address, even the right password is refused for a while; another name is not."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def _login(client: Client, username: str, password: str) -> int:
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password}).status_code


def test_repeated_failures_lock_out_that_name_from_that_address(settings):
    user = get_user_model().objects.create_superuser("operator", "op@example.org", "the-right-password-123")
    other = get_user_model().objects.create_superuser("second", "two@example.org", "another-password-456")
    client = Client()
    for _guess in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, user.username, "wrong") == 200  # the form again, with its error
    assert _login(client, user.username, "wrong") == 429
    assert _login(client, user.username, "the-right-password-123") == 429, "locked out, even when right"
    assert client.get("/admin/").status_code == 302, "not logged in"
    assert _login(Client(), other.username, "another-password-456") == 302, "another name logs in"
