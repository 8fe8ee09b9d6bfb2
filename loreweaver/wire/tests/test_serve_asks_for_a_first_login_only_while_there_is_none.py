"""`manage.py serve` prints "first login: … createsuperuser" beside the console's address
only while no one can log in to it; once an operator exists (made as the hint says,
with `manage.py createsuperuser`), the address alone."""

from __future__ import annotations

from loreweaver.testing.servers import start_serve


def _admin_line(env) -> str:
    server = start_serve(env)
    try:
        admin = server.banner_value("Admin: ")
    finally:
        server.stop()
    assert admin, server.banner
    return admin


def test_the_first_login_hint_goes_once_an_operator_exists(fresh_env):
    first = _admin_line(fresh_env)
    assert "first login:" in first and "manage.py createsuperuser" in first
    made = fresh_env.manage(
        "createsuperuser",
        "--noinput",
        "--username",
        "op",
        "--email",
        "op@example.com",
        DJANGO_SUPERUSER_PASSWORD="a first operator's password",
    )
    assert made.returncode == 0, made.stderr
    admin = _admin_line(fresh_env)
    assert admin.rstrip().endswith("/admin/") and "createsuperuser" not in admin
