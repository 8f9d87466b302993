"""PostgreSQL's timestamps read by psycopg's C loader, not by Django's pure-Python one.

Django (5.2, ``postgresql.psycopg_any.BaseTzLoader``) reads every ``timestamptz`` through a
subclass of psycopg's *Python* loader, to give each value Django's time zone; the C loader of
psycopg's binary package cannot be subclassed. That parse was the largest single function of a
turn email (6% of its CPU: a game row, four seats with their users and the game's events carry
a hundred timestamps) and it costs 3 µs a value against 0.8 µs for the C loader. Django ticket
#36960 and psycopg issue #1273 describe it; until Django reads them natively, each PostgreSQL
connection gets a loader that parses with the C loader and then does what Django's does
(``replace(tzinfo=...)``, the connection's session time zone being Django's).

Without the binary package (psycopg's pure-Python build), nothing changes.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper

try:
    from psycopg import adapters
    from psycopg.postgres import types
    from psycopg.types.datetime import TimestamptzLoader
except ImportError:  # no psycopg: SQLite only
    TimestamptzLoader = None  # type: ignore[assignment,misc]


def _optimised() -> Any:
    """psycopg's C loader of ``timestamptz`` text, or None (the pure-Python build)."""
    if TimestamptzLoader is None:
        return None
    try:  # private to psycopg (issue #1273): any change there falls back to Django's loader
        found = adapters._get_optimised(TimestamptzLoader)
    except Exception:
        return None
    return None if found is TimestamptzLoader else found


_C_LOADER = _optimised()


@functools.cache
def loader_for(tz: Any) -> type | None:
    """A loader class giving every ``timestamptz`` the time zone ``tz`` as Django's does
    (``timezone``: the attribute Django compares to its connection's before each cursor)."""
    if _C_LOADER is None:
        return None

    class CTimestamptzLoader(TimestamptzLoader):  # type: ignore[misc,valid-type]
        timezone = tz

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            self._parse = _C_LOADER(oid, context).load

        def load(self, data: Any) -> Any:
            return self._parse(data).replace(tzinfo=self.timezone)

    return CTimestamptzLoader


def use_c_loader(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """``connection_created``: a PostgreSQL connection reads its timestamps in C."""
    if connection.vendor != "postgresql":
        return
    loader = loader_for(connection.timezone)
    if loader is not None:
        connection.connection.adapters.register_loader(types["timestamptz"].oid, loader)
