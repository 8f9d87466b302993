"""GET /healthz: the database, the broker and the heartbeats of periodic work."""

from __future__ import annotations

import datetime
import socket
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import tasks

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    """A local TCP port nothing listens on (bound once, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def beat(name: str, seconds_ago: float) -> None:
    when = timezone.now() - datetime.timedelta(seconds=seconds_ago)
    cache.set(f"heartbeat:{name}", when.isoformat(), timeout=None)


@pytest.fixture
def filesystem_broker(settings: Any, tmp_path: Path) -> Path:
    """The embedded broker with an existing queue folder: no Redis needed, even in CI."""
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_FILESYSTEM_QUEUE = tmp_path
    return tmp_path


def get_health(client: Client) -> tuple[int, dict[str, Any]]:
    response = client.get(reverse("healthz"))
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return response.status_code, response.json()


def test_healthz_answers_200_when_everything_is_fresh(
    client: Client, filesystem_broker: Path
) -> None:
    beat("sweep", 10)
    beat("worker", 5)

    status, body = get_health(client)

    assert status == 200
    assert body == {
        "ok": True,
        "checks": {"database": "ok", "broker": "ok", "sweep": "ok", "worker": "ok"},
    }


def test_the_tasks_record_the_heartbeats_healthz_reads(
    client: Client, filesystem_broker: Path
) -> None:
    tasks.sweep_deadlines.delay()
    tasks.worker_heartbeat.delay()

    status, body = get_health(client)

    assert status == 200, body


def test_stale_sweep_gives_503_naming_it(
    client: Client, filesystem_broker: Path, settings: Any
) -> None:
    settings.HEALTH_MAX_SWEEP_AGE = 180
    beat("sweep", 600)
    beat("worker", 5)

    status, body = get_health(client)

    assert status == 503
    assert body["ok"] is False
    assert body["checks"]["sweep"].startswith("last deadline sweep was 600 s ago")
    assert "limit 180 s" in body["checks"]["sweep"]
    assert {k: v for k, v in body["checks"].items() if v != "ok"}.keys() == {"sweep"}


def test_missing_worker_heartbeat_gives_503_naming_it(
    client: Client, filesystem_broker: Path
) -> None:
    beat("sweep", 10)

    status, body = get_health(client)

    assert status == 503
    assert body["checks"]["worker"] == "no worker heartbeat recorded"
    assert body["checks"]["sweep"] == "ok"


def test_unreachable_redis_broker_gives_503_naming_it(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    beat("sweep", 10)
    beat("worker", 5)

    status, body = get_health(client)

    assert status == 503
    assert body["checks"]["broker"].startswith("broker (Redis) unreachable")
    assert body["checks"]["database"] == "ok"


def test_missing_queue_folder_of_filesystem_broker_gives_503(
    client: Client, settings: Any, tmp_path: Path
) -> None:
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_FILESYSTEM_QUEUE = tmp_path / "gone"
    beat("sweep", 10)
    beat("worker", 5)

    status, body = get_health(client)

    assert status == 503
    assert "does not exist" in body["checks"]["broker"]


def test_healthz_is_exempt_from_the_https_redirect(
    client: Client, filesystem_broker: Path, settings: Any
) -> None:
    """A load balancer probes over plain http; every other page redirects to https."""
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    beat("sweep", 10)
    beat("worker", 5)

    assert Client().get("/healthz").status_code == 200
    home = Client().get("/")
    assert home.status_code == 301
    assert home["Location"].startswith("https://")


def test_worker_heartbeat_runs_every_30_seconds(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["worker-heartbeat"]

    assert entry == {"task": "games.tasks.worker_heartbeat", "schedule": 30.0}
