"""PostgreSQL's timestamps are read by psycopg's C loader (keltis_site.pg_timestamps) and come
out exactly as Django's own loader gives them: the same instant, in Django's time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from django.db import connection

from games.models import Game
from keltis_site import pg_timestamps

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL loader"),
]


def _loader() -> type:
    from psycopg.postgres import types
    from psycopg.pq import Format

    connection.ensure_connection()
    return connection.connection.adapters.get_loader(types["timestamptz"].oid, Format.TEXT)


def test_each_connection_reads_timestamps_in_c() -> None:
    assert pg_timestamps._C_LOADER is not None  # the binary package, as pyproject asks
    assert _loader().__name__ == "CTimestamptzLoader"
    assert _loader().timezone == connection.timezone  # so Django keeps it for every cursor


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 11, 29, 13, 44, 6, 123456, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
        datetime(2024, 2, 29, 0, 0, tzinfo=timezone(timedelta(hours=14))),
    ],
)
def test_a_timestamp_reads_back_as_the_same_instant_in_djangos_zone(value: datetime) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz, now()", [value])
        read, now = cursor.fetchone()
    assert read == value
    assert read.tzinfo is connection.timezone is now.tzinfo


def test_a_model_row_reads_back_as_written(make_user: Any) -> None:
    created = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    game = Game.objects.create(
        kind="keltis", player_count=2, setup={}, created_by=make_user("ania"), created_at=created
    )
    assert Game.objects.get(pk=game.pk).created_at == created
    assert Game.objects.filter(created_at=created).get() == game
