"""``migrate``, one host at a time.

Every web server runs ``migrate`` before gunicorn starts (docker-compose.yml, the image). Two
that start at once on PostgreSQL both found a migration unapplied and both ran it: one failed
("duplicate key value violates unique constraint", measured with two at once on an empty
database) and, worse, a migration that only changes data would have run twice, as
django_migrations has no unique key. So on PostgreSQL this command first takes a session-level
advisory lock: the others wait for it, then find the migrations applied and do nothing. A
connection that dies releases the lock with it. SQLite serves one host and needs none.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

#: the advisory lock's key ("keltis" in ASCII); nothing else of the site takes it
MIGRATE_LOCK = 0x6B656C746973


class Command(DjangoMigrate):
    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        if connection.vendor != "postgresql":
            super().handle(*args, **options)
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])
        try:
            super().handle(*args, **options)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])
