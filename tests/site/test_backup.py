"""The backup the README gives operators: a pg_dump of the database restores into an empty one
with every game, its event log's hash chains, the append-only trigger and the site working."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_dump needs PostgreSQL"),
    pytest.mark.django_db(transaction=True),  # committed rows: pg_dump reads another session
]


def conninfo(name: str) -> dict[str, Any]:
    db = connection.settings_dict
    return {
        "dbname": name,
        "host": db["HOST"] or None,
        "port": db["PORT"] or None,
        "user": db["USER"] or None,
        "password": db["PASSWORD"] or None,
    }


def client_env() -> dict[str, str]:
    """libpq's variables for pg_dump and pg_restore: the test database's server and user."""
    db = connection.settings_dict
    env = dict(os.environ)
    for key, value in (
        ("PGHOST", db["HOST"]), ("PGPORT", db["PORT"]),
        ("PGUSER", db["USER"]), ("PGPASSWORD", db["PASSWORD"]),
    ):
        if value:
            env[key] = str(value)
    return env


def database_url(name: str) -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"


@pytest.fixture
def restored_name() -> Iterator[str]:
    """An empty database to restore into, dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_restored"
    admin = conninfo("postgres")
    with psycopg.connect(**{k: v for k, v in admin.items() if v}, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(**{k: v for k, v in admin.items() if v}, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def played_game(make_user: Any, moves: int) -> Game:
    anna, bela = make_user(), make_user()
    game = game_create(creator=anna, kind="keltis", player_count=2)
    game_join(game_id=game.pk, user=bela)
    users = [anna, bela]
    bot = RandomBot(5)
    for _ in range(moves):
        game.refresh_from_db()
        if game.status != GameStatus.RUNNING:
            break
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq, user=users[game.to_move],
        )
    game.refresh_from_db()
    return game


@pytest.mark.skipif(
    not (shutil.which("pg_dump") and shutil.which("pg_restore")),
    reason="PostgreSQL's client programs pg_dump and pg_restore are not installed",
)
def test_a_pg_dump_restores_into_an_empty_database_with_its_chains_and_trigger(
    make_user: Any, restored_name: str, tmp_path: Path
) -> None:
    game = played_game(make_user, moves=30)
    assert game.seq >= 30
    dump = tmp_path / "keltis.dump"
    env = client_env()
    # the README's commands, without docker compose around them
    subprocess.run(
        ["pg_dump", "--format=custom", f"--file={dump}", connection.settings_dict["NAME"]],
        env=env, check=True, capture_output=True, timeout=120,
    )
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={restored_name}", str(dump)],
        env=env, check=True, capture_output=True, timeout=120,
    )

    verify = subprocess.run(
        [sys.executable, "manage.py", "verify_event_chains"],
        cwd=REPO_ROOT,
        env={**env, "DATABASE_URL": database_url(restored_name), "ENV_FILE": "/nonexistent"},
        capture_output=True, text=True, timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "checked 1 game(s), 0 with a broken chain" in verify.stdout

    info = {k: v for k, v in conninfo(restored_name).items() if v}
    with psycopg.connect(**info, autocommit=True) as conn:
        seq, head = conn.execute(
            "SELECT seq, chain_head FROM games_game WHERE id = %s", [game.pk]
        ).fetchone()
        assert (seq, head) == (game.seq, game.chain_head)
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE games_event SET action = 'pass' WHERE game_id = %s", [game.pk])
