"""The settings read the environment as documented.

Settings are evaluated once per process, so each case imports them in a fresh subprocess with
a controlled environment.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL")


def run_settings(**environment: str) -> subprocess.CompletedProcess[str]:
    """Import keltis_site.settings in a child process and print the values the tests check."""
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    env.update(environment, DJANGO_SETTINGS_MODULE="keltis_site.settings")
    code = (
        "import json; from django.conf import settings as s; print(json.dumps({"
        "'db': s.DATABASES['default'], 'debug': s.DEBUG, 'hosts': s.ALLOWED_HOSTS,"
        "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL}, default=str))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def settings_with(**environment: str) -> dict[str, Any]:
    result = run_settings(**environment)
    assert result.returncode == 0, result.stderr
    values: dict[str, Any] = json.loads(result.stdout)
    return values


def test_default_database_is_sqlite_file_in_project_dir() -> None:
    db = settings_with()["db"]

    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(db["NAME"]) == REPO_ROOT / "db.sqlite3"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_postgres_url_selects_postgresql(scheme: str) -> None:
    db = settings_with(DATABASE_URL=f"{scheme}://alice:secret@db.example:5433/keltis")["db"]

    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("keltis", "alice", "secret")
    assert (db["HOST"], str(db["PORT"])) == ("db.example", "5433")


def test_without_broker_tasks_run_eagerly() -> None:
    values = settings_with()

    assert values["broker"] == ""
    assert values["eager"] is True


def test_with_broker_tasks_go_to_the_broker() -> None:
    values = settings_with(CELERY_BROKER_URL="redis://127.0.0.1:6379/0")

    assert values["broker"] == "redis://127.0.0.1:6379/0"
    assert values["eager"] is False


def test_production_requires_secret_key() -> None:
    result = run_settings(DEBUG="False")

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_reads_secret_key_and_hosts() -> None:
    values = settings_with(
        DEBUG="False", SECRET_KEY="x" * 50, ALLOWED_HOSTS="keltis.example,www.keltis.example"
    )

    assert values["debug"] is False
    assert values["hosts"] == ["keltis.example", "www.keltis.example"]
