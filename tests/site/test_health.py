"""GET /healthz: 503 only without a database; what is degraded (cache, broker, heartbeats,
failed emails) for staff and for monitors bearing HEALTH_TOKEN; the public sees up or down."""

from __future__ import annotations

import datetime
import socket
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.db import OperationalError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import tasks
from keltis_site import health
from notifications.models import Notification, NotificationKind, NotificationStatus

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


TOKEN = "a-monitor-token-0123456789"
ALL_OK = {
    "database": "ok",
    "cache": "ok",
    "broker": "ok",
    "sweep": "ok",
    "worker": "ok",
    "emails": "ok",
}


@pytest.fixture(autouse=True)
def _token(settings: Any) -> None:
    settings.HEALTH_TOKEN = TOKEN


def get_health(client: Client, **headers: str) -> tuple[int, dict[str, Any]]:
    response = client.get(reverse("healthz"), headers=headers)
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return response.status_code, response.json()


def get_details(client: Client) -> tuple[int, dict[str, Any]]:
    """/healthz as a monitor that has the token asks it."""
    return get_health(client, authorization=f"Bearer {TOKEN}")


def problems(body: dict[str, Any]) -> dict[str, str]:
    return {name: said for name, said in body["checks"].items() if said != "ok"}


def test_healthz_answers_200_when_everything_is_fresh(
    client: Client, filesystem_broker: Path
) -> None:
    beat("sweep", 10)
    beat("worker", 5)

    assert get_health(client) == (200, {"status": "up"})
    assert get_details(client) == (200, {"status": "up", "checks": ALL_OK})


def test_the_tasks_record_the_heartbeats_healthz_reads(
    client: Client, filesystem_broker: Path
) -> None:
    tasks.sweep_deadlines.delay()
    tasks.worker_heartbeat.delay()

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "up"), body


def test_stale_sweep_is_degraded_naming_it_and_still_200(
    client: Client, filesystem_broker: Path, settings: Any
) -> None:
    """The instance still serves players: a load balancer keeps it."""
    settings.HEALTH_MAX_SWEEP_AGE = 180
    beat("sweep", 600)
    beat("worker", 5)

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "degraded")
    assert body["checks"]["sweep"].startswith("last deadline sweep was 600 s ago")
    assert "limit 180 s" in body["checks"]["sweep"]
    assert problems(body).keys() == {"sweep"}
    assert get_health(client) == (200, {"status": "up"})  # the public sees it serving


def test_missing_worker_heartbeat_is_degraded_naming_it(
    client: Client, filesystem_broker: Path
) -> None:
    beat("sweep", 10)

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "degraded")
    assert problems(body) == {"worker": "no worker heartbeat recorded"}


def test_unreachable_redis_broker_is_degraded_naming_it(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    beat("sweep", 10)
    beat("worker", 5)

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "degraded")
    assert body["checks"]["broker"].startswith("broker (Redis) unreachable")
    assert problems(body).keys() == {"broker"}


def test_missing_queue_folder_of_filesystem_broker_is_degraded(
    client: Client, settings: Any, tmp_path: Path
) -> None:
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_FILESYSTEM_QUEUE = tmp_path / "gone"
    beat("sweep", 10)
    beat("worker", 5)

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "degraded")
    assert "does not exist" in body["checks"]["broker"]


def test_emails_given_up_lately_are_degraded_and_older_ones_forgotten(
    client: Client, filesystem_broker: Path, make_user: Any, settings: Any
) -> None:
    settings.HEALTH_FAILED_EMAIL_DAYS = 3
    beat("sweep", 10)
    beat("worker", 5)
    user = make_user()
    now = timezone.now()
    for number, failed_days_ago in enumerate([1, 2, 4]):
        Notification.objects.create(
            key=f"health:{number}",
            kind=NotificationKind.TURN,
            user=user,
            status=NotificationStatus.FAILED,
            failed_at=now - datetime.timedelta(days=failed_days_ago),
        )

    status, body = get_details(client)

    assert (status, body["status"]) == (200, "degraded")
    assert problems(body) == {"emails": "2 emails given up for good in the last 3 days"}


class BrokenConnection:
    """A database connection whose every query fails, as when the server is gone."""

    def cursor(self) -> Any:
        raise OperationalError("connection refused")


def test_unreachable_database_is_down_503_for_everybody(
    client: Client, filesystem_broker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beat("sweep", 10)
    beat("worker", 5)
    monkeypatch.setattr(health, "connection", BrokenConnection())

    assert get_health(client) == (503, {"status": "down"})
    status, body = get_details(client)
    assert (status, body["status"]) == (503, "down")
    assert body["checks"]["database"] == (
        "database unreachable: OperationalError: connection refused"
    )
    assert body["checks"]["emails"] == "unknown: the database is unreachable"


# -- who sees the checks ----------------------------------------------------------------------
@pytest.fixture
def degraded(filesystem_broker: Path) -> None:
    """A worker heartbeat is missing: the status is "degraded"."""
    beat("sweep", 10)


@pytest.mark.usefixtures("degraded")
def test_the_public_sees_only_up_or_down(client: Client, make_user: Any) -> None:
    anonymous = get_health(client)
    client.force_login(make_user())  # a player who is not staff
    player = get_health(client)

    assert anonymous == player == (200, {"status": "up"})


@pytest.mark.usefixtures("degraded")
def test_staff_see_every_check(client: Client, make_user: Any) -> None:
    client.force_login(make_user(is_staff=True))

    status, body = get_health(client)

    assert (status, body["status"]) == (200, "degraded")
    assert body["checks"]["worker"] == "no worker heartbeat recorded"


@pytest.mark.usefixtures("degraded")
def test_the_token_shows_every_check_as_a_header_or_a_parameter(client: Client) -> None:
    by_header = get_health(client, authorization=f"Bearer {TOKEN}")
    by_parameter = client.get(reverse("healthz"), {"token": TOKEN})

    assert get_health(client) == (200, {"status": "up"})  # the same request without it
    assert by_header[1]["checks"]["worker"] == "no worker heartbeat recorded"
    assert by_parameter.json() == by_header[1]


@pytest.mark.usefixtures("degraded")
def test_a_wrong_or_unset_token_shows_nothing_more(client: Client, settings: Any) -> None:
    for given in ["wrong", TOKEN[:-1], TOKEN + "0", ""]:
        assert get_health(client, authorization=f"Bearer {given}") == (200, {"status": "up"})
        response = client.get(reverse("healthz"), {"token": given})
        assert response.json() == {"status": "up"}
    assert get_health(client, authorization=TOKEN) == (200, {"status": "up"})  # not "Bearer"

    settings.HEALTH_TOKEN = ""  # no token configured: none, not even an empty one, works
    assert get_health(client, authorization="Bearer ") == (200, {"status": "up"})
    assert client.get(reverse("healthz"), {"token": ""}).json() == {"status": "up"}


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
