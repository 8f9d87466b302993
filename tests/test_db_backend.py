"""The tests run on the database DATABASE_URL asks for, so CI provably uses PostgreSQL."""

import os

import pytest
from django.db import connection


@pytest.mark.django_db
def test_connection_vendor_matches_database_url() -> None:
    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith("postgres") else "sqlite"

    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
