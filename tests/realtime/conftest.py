"""Real services for the email and deadline tests: an SMTP server on loopback (aiosmtpd), a
private Redis and a real Celery worker process reading from it.

The worker is a separate process, so it must see what the test committed: these tests use
the transactional test database on PostgreSQL (CI's database). The Redis is the fixture's own
(a redis-server on a free port), so a test may stop and restart it without touching the
machine's Redis.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from bench.infra import PrivateRedis, free_port, wait_until

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.real_worker


# -- SMTP -----------------------------------------------------------------------------------------
@dataclass
class Mailbox:
    """What the loopback SMTP server received; ``refuse`` makes it answer 451 for a while."""

    messages: list[Message] = field(default_factory=list)
    refuse: bool = False
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to(self, address: str) -> list[Message]:
        with self.lock:
            return [m for m in self.messages if address in m["To"]]

    def count(self) -> int:
        with self.lock:
            return len(self.messages)


class _Handler:
    def __init__(self, box: Mailbox) -> None:
        self.box = box

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        import asyncio

        if self.box.delay:
            await asyncio.sleep(self.box.delay)
        if self.box.refuse:
            return "451 4.3.0 Try again later"
        with self.box.lock:
            self.box.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Mailbox, int]]:
    from aiosmtpd.controller import Controller

    box = Mailbox()
    port = free_port()
    controller = Controller(_Handler(box), hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


# -- Redis ----------------------------------------------------------------------------------------
@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    """A redis-server of the test's own, so a test may stop and restart it (an outage)."""
    server = PrivateRedis().start()
    yield server
    server.stop()


# -- the Celery worker ---------------------------------------------------------------------------
class Worker:
    """``celery worker`` in its own process, on the test database and the private Redis."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.log.write_text("")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "keltis_site", "worker", "--pool", "solo",
             "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=REPO,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_until(lambda: "ready." in self.log.read_text(), 60, "the celery worker")

    def kill(self) -> None:
        """SIGKILL: what a crash or an OOM kill does, with no chance to clean up."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


@pytest.fixture
def live_services(
    transactional_db: None, smtp: tuple[Mailbox, int], redis_server: PrivateRedis,
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> Iterator[dict[str, Any]]:
    """A worker sending to the loopback SMTP server, and this process sending tasks to it."""
    if connection.vendor != "postgresql":
        pytest.fail("the real-worker tests need PostgreSQL: set DATABASE_URL (CI does)")
    from keltis_site.celery import app

    box, smtp_port = smtp
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_BROKER_URL": redis_server.url(),
        "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}",
        "SITE_URL": "http://testserver",
        "NOTIFICATION_SENDING_TIMEOUT": "1",
        "PYTHONPATH": str(REPO),
        # one cache for this process and the worker, as for production's hosts: the marks that
        # wake the delivery live there (notifications/relay.py)
        "CACHE_URL": f"rediscache://127.0.0.1:{redis_server.port}/1",
    }
    worker = Worker(env, tmp_path / "worker.log")
    old = (app.conf.broker_url, app.conf.task_always_eager)
    # Celery reads CELERY_BROKER_URL from the environment before its own config (CI sets it)
    monkeypatch.setenv("CELERY_BROKER_URL", redis_server.url())
    app.conf.broker_url = redis_server.url()
    app.conf.task_always_eager = False
    app._after_fork()  # drop the pools built for the old broker URL (Celery's own reset)
    settings.SITE_URL = "http://testserver"
    settings.CACHES = {
        "default": {
            "BACKEND": "keltis_site.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{redis_server.port}/1",
        }
    }
    worker.start()
    try:
        yield {"mailbox": box, "worker": worker, "redis": redis_server}
    finally:
        worker.stop()
        app.conf.broker_url, app.conf.task_always_eager = old
        app._after_fork()
