"""bench/live.py runs at a tiny size on the database the suite runs on (issue 31): on SQLite with
the embedded default's Unix socket, on PostgreSQL (CI's second run) with Redis pub/sub, in a
database and on a port of this test's own, dropped afterwards. It must complete and print its
figures: the streams, the delivery from the commit, the memory, the database connections, the
moves and pages meanwhile and the reference (no timing asserted: the figures are read by hand
from a full run, docs/benchmarks.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from .conftest import free_port

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "live.py"
PAGES = 5


def admin_url(database: dict[str, object]) -> str:
    """The suite's PostgreSQL server, as its user (a superuser here and in CI), on its
    ``postgres`` database."""
    user = quote(str(database.get("USER") or "postgres"))
    password = f":{quote(str(database['PASSWORD']))}" if database.get("PASSWORD") else ""
    host = database.get("HOST") or "127.0.0.1"
    port = database.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/postgres"


def drop(url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


def test_the_live_bench_runs_on_the_suites_database_and_prints_its_figures(
    tmp_path: Path,
) -> None:
    database = settings.DATABASES["default"]
    on_postgres = database["ENGINE"] == "django.db.backends.postgresql"
    # a port of this test's own part of the bench's range, so that parallel runs differ
    port = free_port(range(8450 + os.getpid() % 40, 8500))
    args = ["--pages", str(PAGES), "--repeats", "2", "--port", str(port), "--timeout", "30"]
    name = f"keltis_bench_live_t{os.getpid()}"
    if on_postgres:
        redis = os.environ.get("LIVE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
        args += ["--postgres", admin_url(database), "--db", name, "--redis", redis, "--drop"]
    else:
        args += ["--sqlite"]
    try:
        run = subprocess.run(
            [sys.executable, str(BENCH), *args],
            cwd=REPO,
            env={**os.environ, "TMPDIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        if on_postgres:
            drop(admin_url(database), name)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr

    assert out.startswith("bench/live.py: ")
    transport = "Redis pub/sub" if on_postgres else "Unix socket"
    assert re.search(rf"^transport: {transport}", out, re.M), out
    assert f"\n{PAGES} of {PAGES} streams open in " in out, out
    delivery = re.search(
        r"^delivery from commit: (\d+) of (\d+) open streams heard the move .*; "
        r"p50 \d+ ms, p95 \d+ ms, max \d+ ms; within 2 s: \d+ of \d+ open",
        out,
        re.M,
    )
    assert delivery, out
    assert delivery.group(1) == delivery.group(2) == str(PAGES), out
    assert re.search(r"^stream server after: RSS [\d.]+ MiB, .*memory per open stream", out, re.M)
    assert re.search(r"^stream server's database connections: \d+ ", out, re.M), out
    for what in ("game page", "move"):
        assert re.search(rf"^  {what} .*: wall median [\d.]+ ms", out, re.M), out
    assert "reference, pure-Python loop" in out
    assert re.search(r"^load average at the end: ", out, re.M)
    if on_postgres:
        assert "dropped database and role" in out
        assert re.search(r"^PostgreSQL: server_version=", out, re.M)


@pytest.mark.parametrize("name", ["keltis", "test_keltis", "keltis_live"])
def test_the_live_bench_refuses_a_database_that_is_not_a_benchmarks(name: str) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH), "--db", name, "--pages", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "refusing database" in run.stderr
