"""Logging: JSON lines on stdout in production (web, Celery worker and beat), plain text with
DEBUG, LOG_LEVEL and LOG_FORMAT from the environment.

Logging is configured once per process, so the cases that depend on settings run in a fresh
subprocess with a controlled environment (no .env file).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from keltis_site.logging import JsonFormatter, PlainFormatter

REPO_ROOT = Path(__file__).resolve().parents[2]
OUR_VARIABLES = {"DEBUG", "SECRET_KEY", "LOG_LEVEL", "LOG_FORMAT", "DJANGO_SETTINGS_MODULE"}


def record(
    message: str = "hello %s", args: Any = ("world",), name: str = "games.services", **extra: Any
) -> logging.LogRecord:
    rec = logging.LogRecord(name, logging.INFO, __file__, 1, message, args, None)
    rec.__dict__.update(extra)
    return rec


def test_json_formatter_writes_one_object_with_the_extra_fields() -> None:
    line = JsonFormatter().format(record(game_id=7, seq=3, duration_ms=1.5))

    assert "\n" not in line
    entry = json.loads(line)
    assert entry["message"] == "hello world"
    assert (entry["level"], entry["logger"]) == ("INFO", "games.services")
    assert (entry["game_id"], entry["seq"], entry["duration_ms"]) == (7, 3, 1.5)
    assert entry["time"].endswith("+00:00")


def test_json_formatter_keeps_a_traceback_on_the_same_line() -> None:
    try:
        raise ValueError("broken\nacross lines")
    except ValueError:
        rec = record()
        rec.exc_info = sys.exc_info()

    line = JsonFormatter().format(rec)

    assert "\n" not in line
    assert "ValueError: broken\nacross lines" in json.loads(line)["exception"]


def test_json_formatter_writes_values_json_cannot_hold_as_text() -> None:
    entry = json.loads(JsonFormatter().format(record(where=Path("/tmp/x"), seats={1})))

    assert entry["where"] == "/tmp/x"
    assert entry["seats"] == "{1}"


def test_json_formatter_names_gunicorns_access_fields() -> None:
    atoms = {"m": "POST", "U": "/games/3/act", "q": "", "s": "303", "M": 12, "h": "10.0.0.1"}
    rec = record('%(m)s %(U)s %(s)s', (atoms,), name="gunicorn.access")

    entry = json.loads(JsonFormatter().format(rec))

    assert entry["message"] == "POST /games/3/act 303"
    assert (entry["method"], entry["path"], entry["status"]) == ("POST", "/games/3/act", "303")
    assert (entry["duration_ms"], entry["remote_addr"]) == (12, "10.0.0.1")
    assert "query" not in entry  # empty atoms are left out


def test_plain_formatter_appends_the_extra_fields() -> None:
    line = PlainFormatter().format(record(game_id=7))

    assert line.endswith("INFO games.services: hello world game_id=7")


def run(code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    env.update(
        environment,
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        ENV_FILE="/nonexistent",
        CELERY_BROKER_URL="memory://",
    )
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


LOG_FROM_DJANGO = """
    import logging
    import django

    django.setup()
    logging.getLogger("games.services").info("action applied", extra={"game_id": 42})
    logging.getLogger("games.services").debug("below the level", extra={"game_id": 42})
    logging.getLogger("django.request").warning("Not Found: /nowhere")
"""


def test_production_writes_json_lines_to_stdout() -> None:
    result = run(LOG_FROM_DJANGO, DEBUG="False", SECRET_KEY="x" * 50)

    assert result.returncode == 0, result.stderr
    entries = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(e["logger"], e["message"]) for e in entries] == [
        ("games.services", "action applied"),
        ("django.request", "Not Found: /nowhere"),
    ]
    assert entries[0]["game_id"] == 42
    assert result.stderr == ""  # Django's own stderr handler is gone


def test_debug_writes_plain_text_and_log_level_applies() -> None:
    result = run(LOG_FROM_DJANGO, LOG_LEVEL="debug")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("INFO games.services: action applied game_id=42")
    assert lines[1].endswith("DEBUG games.services: below the level game_id=42")


def test_log_level_warning_drops_info_lines_django_ones_too() -> None:
    result = run(
        LOG_FROM_DJANGO + '    logging.getLogger("django").info("django info")\n',
        LOG_LEVEL="WARNING",
        LOG_FORMAT="json",
    )

    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["message"] for line in result.stdout.splitlines()] == [
        "Not Found: /nowhere"
    ]


def test_an_unknown_log_format_is_refused() -> None:
    result = run("import django; django.setup()", LOG_FORMAT="xml")

    assert result.returncode != 0
    assert "LOG_FORMAT must be json or plain" in result.stderr


def test_celery_worker_and_beat_logging_is_ours() -> None:
    """What ``celery worker`` and ``celery beat`` run at start-up: through the setup_logging
    signal the project's JSON handler is the only one, and task loggers reach it."""
    code = """
        import logging
        from celery.utils.log import get_task_logger
        from keltis_site.celery import app

        app.log.setup(loglevel="INFO", redirect_stdouts=True)
        get_task_logger("games.tasks").info("sweep done", extra={"game_id": 5})
        logging.getLogger("celery.worker").info("celery@host ready.")
        print(len(logging.getLogger().handlers), file=__import__("sys").stderr)
    """
    result = run(code, DEBUG="False", SECRET_KEY="x" * 50)

    assert result.returncode == 0, result.stderr
    entries = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["message"] for e in entries] == ["sweep done", "celery@host ready."]
    assert entries[0]["game_id"] == 5
    assert result.stderr.strip() == "1"  # one root handler: Celery added none of its own
