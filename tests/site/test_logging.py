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

import pytest
from django.test import Client
from django.urls import reverse

from keltis_site.logging import JsonFormatter, PlainFormatter, mask_secrets
from notifications import links

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


#: a token of each kind the emailed links carry, its signature changed (the site refuses it)
BAD_ACTION_TOKEN = links.ActionLink(4, 1, 12, 13, "draw deck").token()[:-4] + "AAAA"
BAD_UNSUBSCRIBE_TOKEN = links.unsubscribe_token(42)[:-4] + "AAAA"


def secret_paths() -> dict[str, str]:
    """Each route whose path holds a secret that acts without a login, built as the site
    builds it, with the secret it holds."""
    confirm, reset = "MQ:1uXYZ:k3yOfConfirmation", "set-password-key-0123"
    return {
        reverse("email_action", args=[BAD_ACTION_TOKEN]): BAD_ACTION_TOKEN,
        reverse("email_unsubscribe", args=[BAD_UNSUBSCRIBE_TOKEN]): BAD_UNSUBSCRIBE_TOKEN,
        reverse("account_confirm_email", args=[confirm]): confirm,
        reverse(
            "account_reset_password_from_key", kwargs={"uidb36": "4", "key": reset}
        ): f"4-{reset}",
    }


def test_every_secret_in_a_path_is_cut_to_its_first_characters() -> None:
    for path, secret in secret_paths().items():
        line = mask_secrets(f'GET {path}?x=1 HTTP/1.1" 400 "https://keltis.example{path}"')
        assert secret[6:] not in line, path
        assert line.count(f"{secret[:6]}…/") == 2, line
    for path in ("/games/3/act/", "/accounts/password/reset/key/done/", "/t/short/"):
        assert mask_secrets(path) == path


def test_gunicorns_access_line_masks_a_token_in_the_path_and_the_referer() -> None:
    path = f"/t/{BAD_ACTION_TOKEN}/"
    atoms = {
        "m": "GET", "U": path, "r": f"GET {path} HTTP/1.1", "s": "400",
        "f": f"https://keltis.example{path}", "h": "10.0.0.1",
    }  # fmt: skip
    rec = record('%(h)s "%(r)s" %(s)s "%(f)s"', (atoms,), name="gunicorn.access")

    for line in (JsonFormatter().format(rec), PlainFormatter().format(rec)):
        assert BAD_ACTION_TOKEN[6:] not in line
    entry = json.loads(JsonFormatter().format(rec))
    assert entry["path"] == f"/t/{BAD_ACTION_TOKEN[:6]}…/"
    assert entry["message"].count(f"/t/{BAD_ACTION_TOKEN[:6]}…/") == 2


@pytest.mark.django_db
def test_a_bad_token_requests_log_lines_keep_only_its_first_characters(
    client: Client, caplog: Any
) -> None:
    """Django's "Bad Request" warning names the path (and the request, as a field): through
    either formatter the token is cut short."""
    with caplog.at_level(logging.WARNING, logger="django.request"):
        for path in list(secret_paths())[:2]:
            assert client.get(path).status_code == 400

    records = [r for r in caplog.records if r.name == "django.request"]
    assert len(records) == 2
    for rec, token in zip(records, (BAD_ACTION_TOKEN, BAD_UNSUBSCRIBE_TOKEN), strict=True):
        assert token in rec.getMessage()  # what the formatters are given
        json_line, plain_line = JsonFormatter().format(rec), PlainFormatter().format(rec)
        for line in (json_line, plain_line):
            assert token[6:] not in line
        entry = json.loads(json_line)
        assert entry["message"].startswith("Bad Request: /") and entry["message"].endswith("…/")
        assert f"{token[:6]}…/" in entry["request"]


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
