"""The embedded default under load: several players and the Celery worker at once on one
SQLite file, as ``scripts/serve`` runs them, with no "database is locked" anywhere.

SQLite's defaults failed this (about one move in a hundred answered 500 while the worker sent
emails); the settings now use WAL, a busy timeout and transactions that take the write lock at
BEGIN. The processes share nothing with the test database: they migrate their own file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.realtime.conftest import Worker, wait_until

REPO = Path(__file__).resolve().parents[2]
ROLES = REPO / "tests" / "site" / "sqlite_roles.py"
GAMES = 4
#: moves the four players make together (a game takes more: none need finish)
MOVES = 200

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="an SQLite test: CI's SQLite run has it"
)


def embedded_env(tmp_path: Path) -> dict[str, str]:
    """The embedded default (SQLite, file broker, file cache, emails as files) in tmp_path."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "EMAIL_URL"}
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        VAR_DIR=str(tmp_path / "var"),
        ENV_FILE=str(tmp_path / "no.env"),
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        PYTHONPATH=str(REPO),
        # its players act seconds apart: no turn email held for quiet while active
        NOTIFICATION_QUIET_MINUTES="0",
    )
    return env


def run(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, *args], cwd=REPO, env=env, check=True, timeout=300)


def test_players_and_the_worker_at_once_never_find_the_database_locked(tmp_path: Path) -> None:
    env = embedded_env(tmp_path)
    run(env, "manage.py", "migrate", "--noinput", "-v", "0")
    run(env, str(ROLES), "setup", str(GAMES))
    worker = Worker(env, tmp_path / "worker.log")
    worker.start()
    try:
        players = [
            subprocess.Popen(
                [sys.executable, str(ROLES), "play", f"{name}:{MOVES}"],
                cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            for name in ("p0", "p1", "p2", "p3")
        ]
        results = [p.communicate(timeout=300) for p in players]
        for player, (_out, err) in zip(players, results, strict=True):
            assert player.returncode == 0, err[-3000:]
        moves = sum(int(out.split()[-1]) for out, _err in results)

        db = sqlite3.connect(tmp_path / "db.sqlite3")

        def all_mail_handled() -> bool:
            (pending,) = db.execute(
                "SELECT COUNT(*) FROM games_notification WHERE status IN ('queued', 'sending')"
            ).fetchone()
            return pending == 0

        wait_until(all_mail_handled, 120, "the worker to send every email")
    finally:
        worker.stop()
    log = (tmp_path / "worker.log").read_text()
    assert "locked" not in log and "Traceback" not in log, log[-3000:]
    (events,) = db.execute("SELECT COUNT(*) FROM games_event").fetchone()
    outcomes = dict(
        db.execute("SELECT status, COUNT(*) FROM games_notification GROUP BY status").fetchall()
    )
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert events == moves >= MOVES
    # every turn email was handled: sent, or skipped when the turn was over before the worker
    # came to it (these players move at once); some really went out, as files
    assert set(outcomes) <= {"sent", "skipped"} and outcomes.get("sent", 0) > 0
    # Django's file backend names a file by the second and the backend object's id, so two
    # emails of one second may share a file: count the messages, each ends with its rule
    written = sum(
        path.read_bytes().count(b"\n" + b"-" * 79 + b"\n")
        for path in (tmp_path / "var" / "mail").iterdir()
    )
    assert written == outcomes["sent"]
