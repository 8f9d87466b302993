"""``manage.py receive_mail`` run as a mail server's pipe transport runs it: a process of its
own, the reply on stdin. Its stdout is what the pipe reads (Postfix puts it in a bounce): the
outcome alone; the log lines go to stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from games.models import Event
from notifications.models import InboundMessage
from tests.notifications.conftest import Table

from .conftest import DOMAIN, reply, reply_address
from .test_unparseable import nested

REPO = Path(__file__).resolve().parents[3]


def database_url() -> str:
    """The test database, for a process of its own."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def pipe_env(tmp_path: Path, settings: Any) -> dict[str, str]:
    """A production-like environment (DEBUG off, JSON logs) on the embedded default's file
    queue, cache and mail: a move queues its emails' task through kombu's file transport."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "CELERY_", "LIVE_"))
        and key not in {"DATABASE_URL", "CACHE_URL", "EMAIL_URL", "DEBUG", "LOCAL_SERVE"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="keltis_site.settings",
        PYTHONPATH=str(REPO),
        ENV_FILE=str(tmp_path / "no.env"),
        VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=database_url(),
        DEBUG="False",
        SECRET_KEY=settings.SECRET_KEY,  # the reply address is signed with it
        ALLOWED_HOSTS="keltis.example",
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
        INBOUND_EMAIL_DOMAIN=DOMAIN,
        INBOUND_AUTHSERV_ID=settings.INBOUND_AUTHSERV_ID,
        INBOUND_RATE_LIMIT="1000/h",
    )
    return env


@pytest.mark.django_db(transaction=True)
def test_receive_mail_prints_the_outcome_alone_and_logs_on_stderr(
    players: Callable[..., Table], tmp_path: Path, settings: Any
) -> None:
    t = players()
    anna = t.users[0]
    to = reply_address(t.game)
    done = subprocess.run(
        [sys.executable, "manage.py", "receive_mail", "--recipient", to, "--sender", anna.email],
        input=reply(to, anna.email, "red 5 big"),
        capture_output=True,
        cwd=REPO,
        env=pipe_env(tmp_path, settings),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"applied\n", done.stdout.decode()
    assert Event.objects.filter(game=t.game).count() == 2  # the move and the only draw
    # the log lines (the moves, the reply's outcome) on stderr, each a JSON record
    records = [json.loads(line) for line in done.stderr.decode().splitlines()]
    assert {"logger": "notifications.inbound.handler", "outcome": "applied"}.items() <= next(
        r for r in records if r["logger"] == "notifications.inbound.handler"
    ).items()
    assert sum(r["logger"] == "games.services" for r in records) == 2
    # the emails' task was queued through the file transport, with no kombu warning
    assert list((tmp_path / "var" / "celery" / "queue").glob("*.msg"))
    assert not any(r["logger"].startswith("kombu") for r in records)


@pytest.mark.django_db(transaction=True)
def test_receive_mail_prints_the_outcome_of_an_unknown_address(
    players: Callable[..., Table], tmp_path: Path, settings: Any
) -> None:
    """A refused message (67: the mail server bounces it, quoting stdout) says only why."""
    t = players()
    to = f"play+{t.game.pk}-0-0-forged@{DOMAIN}"
    done = subprocess.run(
        [sys.executable, "manage.py", "receive_mail", "--recipient", to],
        input=reply(to, t.users[0].email, "help"),
        capture_output=True,
        cwd=REPO,
        env=pipe_env(tmp_path, settings),
        timeout=120,
    )
    assert done.returncode == 67
    assert done.stdout == b"unknown_address\n"
    assert b'"outcome": "unknown_address"' in done.stderr


@pytest.mark.django_db(transaction=True)
def test_receive_mail_refuses_a_reply_nested_3000_deep_for_good(
    players: Callable[..., Table], tmp_path: Path, settings: Any
) -> None:
    """MIME nested 3,000 deep once made the parser raise RecursionError: exit 75, so the mail
    server retried it for days, and no row said so. It is a permanent failure now: recorded,
    answered (the seat's player sent it), and exit 0 (handled: the answer says why)."""
    t = players()
    anna = t.users[0]
    to = reply_address(t.game)
    done = subprocess.run(
        [sys.executable, "manage.py", "receive_mail", "--recipient", to, "--sender", anna.email],
        input=nested(to, anna.email, 3000),
        capture_output=True,
        cwd=REPO,
        env=pipe_env(tmp_path, settings),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == b"refused\n"
    row = InboundMessage.objects.get()
    assert (row.outcome, row.detail) == ("refused", '{"error": "unparseable"}')
    assert row.answered_at is not None
    assert not Event.objects.filter(game=t.game).exists()


@pytest.mark.django_db(transaction=True)
def test_receive_mail_gives_up_on_an_unparseable_mail_from_nobody(
    players: Callable[..., Table], tmp_path: Path, settings: Any
) -> None:
    """No sender can be read: "not an email" (65, the mail server bounces, never retries)."""
    t = players()
    to = reply_address(t.game)
    raw = nested(to, "x@example.org", 3000).replace(
        b"From: A Player <x@example.org>", b"From: " + b"(" * 3000 + b"x" + b")" * 3000
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "receive_mail", "--recipient", to],
        input=raw,
        capture_output=True,
        cwd=REPO,
        env=pipe_env(tmp_path, settings),
        timeout=120,
    )
    assert done.returncode == 65, done.stderr.decode()[-2000:]
    assert done.stdout == b"garbage\n"
    assert InboundMessage.objects.get().outcome == "garbage"
