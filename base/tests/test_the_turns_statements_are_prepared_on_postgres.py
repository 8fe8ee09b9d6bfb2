"""Hosted, a statement a connection sends again and again is prepared by Postgres:
parsed and planned once, not at every turn."""

from __future__ import annotations

import pytest
from django.db import connection

from loreweaver.testing.servers import hosted_profile

pytestmark = [
    pytest.mark.skipif(not hosted_profile(), reason="the hosted profile's Postgres"),
    pytest.mark.django_db,
]


def test_a_statement_sent_five_times_is_prepared_once():
    with connection.cursor() as cursor:
        for scene in range(6):
            cursor.execute("SELECT scene_name FROM keeper_story WHERE room_id = %s", [scene])
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert "SELECT scene_name FROM keeper_story WHERE room_id = $1" in prepared
