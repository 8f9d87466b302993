"""``migrate`` runs on one host at a time (keltis_site/management/commands/migrate.py): every web
server migrates before it starts, and two starting at once on PostgreSQL must not both apply
a migration. Each test migrates a database of its own, made and dropped here."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from bench.infra import wait_until
from keltis_site.management.commands.migrate import MIGRATE_LOCK

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the lock is PostgreSQL's (advisory); SQLite serves a single host",
)


def server_url(database: str) -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{database}"
    )


@pytest.fixture
def empty_database() -> Iterator[str]:
    """A new, empty database beside the test database; its name."""
    name = f"{connection.settings_dict['NAME']}_migrate"
    with psycopg.connect(server_url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(server_url("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_migrate(database: str, tmp_path: Path, name: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "ENV_FILE": os.devnull,
        "DATABASE_URL": server_url(database),
        "VAR_DIR": str(tmp_path / name),
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def one(conn: psycopg.Connection[Any], query: str) -> Any:
    row = conn.execute(query).fetchone()
    assert row is not None
    return row[0]


def test_migrate_waits_for_the_host_that_migrates(empty_database: str, tmp_path: Path) -> None:
    with psycopg.connect(server_url(empty_database), autocommit=True) as other_host:
        other_host.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])
        migrate = start_migrate(empty_database, tmp_path, "a")
        try:
            wait_until(
                lambda: one(
                    other_host,
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    " AND database = (SELECT oid FROM pg_database"
                    "                 WHERE datname = current_database())",
                ),
                30,
                "migrate to wait for the lock",
            )
            # waiting, it has applied nothing
            assert one(other_host, "SELECT to_regclass('django_migrations')") is None
        finally:
            other_host.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])
        output, _ = migrate.communicate(timeout=120)
        assert migrate.returncode == 0, output
        assert one(other_host, "SELECT count(*) FROM django_migrations") > 0


def test_two_hosts_migrating_at_once_both_succeed_and_apply_each_migration_once(
    empty_database: str, tmp_path: Path
) -> None:
    first = start_migrate(empty_database, tmp_path, "a")
    second = start_migrate(empty_database, tmp_path, "b")
    outputs = [first.communicate(timeout=120)[0], second.communicate(timeout=120)[0]]

    assert [first.returncode, second.returncode] == [0, 0], outputs
    with psycopg.connect(server_url(empty_database)) as conn:
        applied = conn.execute("SELECT app, name FROM django_migrations").fetchall()
    assert len(applied) == len(set(applied)) > 0
