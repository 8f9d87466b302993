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


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's cursors: PostgreSQL")
def test_postgresql_queries_bind_their_parameters_on_the_server() -> None:
    """The settings' server-side binding reaches the driver: the cursor is not psycopg's
    client-side one, and a parameter arrives typed, not spliced into the text."""
    import psycopg

    with connection.cursor() as cursor:
        assert not isinstance(cursor.cursor, psycopg.ClientCursor)
        # psycopg types a small int as smallint; spliced into the text, 7 would be an integer
        cursor.execute("SELECT pg_typeof(%s)::text", [7])
        assert cursor.fetchone() == ("smallint",)
