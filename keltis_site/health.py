"""GET /healthz: whether this instance can serve (for a load balancer) and what around it is
wrong (for staff and monitors).

The status, from the checks below:

- "down", answered 503: the database does not answer, so no page can be served;
- "degraded", answered 200: players can play, but something is wrong: the cache is unreachable
  (sessions then come from the database and rate limits count per process, see
  keltis_site/cache.py), the broker is unreachable (emails and bots wait; moves are stored),
  the deadline sweep or the worker heartbeat is stale, or emails were given up for good in the
  last HEALTH_FAILED_EMAIL_DAYS days. A load balancer keeps sending players to a degraded
  instance: taking every instance out for a shared worker or cache would stop the whole site;
- "up", answered 200: every check passes.

The public sees only the status code and {"status": "up"} or {"status": "down"} (degraded is
"up" to it): the checks name hosts, ports and errors. Staff (logged in) and requests bearing
HEALTH_TOKEN (``Authorization: Bearer <token>`` or ``?token=<token>``) also get the status
"degraded" and every check: {"status": ..., "checks": {"cache": "ok", ...}}.

Heartbeats are only visible across processes when the cache is shared (CACHE_URL=rediscache://
in production, files under var/ locally).
"""

from __future__ import annotations

import datetime
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

BROKER_TIMEOUT = 1.0  # seconds

UP, DEGRADED, DOWN = "up", "degraded", "down"
#: the checks without which no page can be served: their failure is "down" (503)
CRITICAL = frozenset({"database"})


def check_database() -> str | None:
    """None when a trivial query answers, else what went wrong."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"database unreachable: {exc.__class__.__name__}: {exc}"
    return None


def check_cache() -> str | None:
    """None when a value written to the cache is read back. keltis_site.cache answers misses
    while Redis is away, and says since when and why."""
    key = f"healthz:probe:{secrets.token_hex(8)}"  # one per request: probes may run at once
    try:
        cache.set(key, key, timeout=60)
        answered = cache.get(key)
        cache.delete(key)
    except Exception as exc:
        return f"cache unreachable: {exc.__class__.__name__}: {exc}"
    if answered == key:
        return None
    unavailable = getattr(cache, "unavailable", None)
    why = unavailable() if unavailable is not None else None
    if why is None:
        return "cache unreachable: a value written was not read back"
    return f"cache {why}: sessions are read from the database, rate limits count per process"


def check_broker() -> str | None:
    """Redis: a PING within a second. The file-system broker: its queue folder exists."""
    url: str = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://")):
        import redis

        try:
            client = redis.Redis.from_url(
                url, socket_timeout=BROKER_TIMEOUT, socket_connect_timeout=BROKER_TIMEOUT
            )
            try:
                client.ping()
            finally:
                client.close()
        except Exception as exc:
            return f"broker (Redis) unreachable: {exc.__class__.__name__}: {exc}"
        return None
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_FILESYSTEM_QUEUE)
        if not folder.is_dir():
            return f"broker queue folder {folder} does not exist"
        return None
    return None  # another transport: not checked


def check_heartbeat(name: str, what: str, max_age: int) -> str | None:
    """None when the heartbeat ``name`` was recorded less than ``max_age`` seconds ago."""
    try:
        value = cache.get(f"heartbeat:{name}")
    except Exception as exc:
        return f"cache unreachable reading the {what} heartbeat: {exc.__class__.__name__}"
    if value is None:
        return f"no {what} heartbeat recorded"
    try:
        when = datetime.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return f"{what} heartbeat unreadable: {value!r}"
    age = (timezone.now() - when).total_seconds()
    if age >= max_age:
        return f"last {what} was {int(age)} s ago (limit {max_age} s)"
    return None


def check_failed_emails() -> str | None:
    """None unless emails were given up for good lately (notifications.outbox.failed_count): players
    who are not told that it is their turn time out. Staff requeue them in the admin."""
    from notifications.outbox import failed_count

    days: int = settings.HEALTH_FAILED_EMAIL_DAYS
    try:
        failed = failed_count(days)
    except Exception as exc:
        return f"failed emails not counted: {exc.__class__.__name__}: {exc}"
    if failed:
        return f"{failed} emails given up for good in the last {days} days"
    return None


@dataclass(frozen=True)
class Report:
    """Each check's problem (None: it passed)."""

    problems: dict[str, str | None]

    @property
    def status(self) -> str:
        failing = {name for name, problem in self.problems.items() if problem is not None}
        if failing & CRITICAL:
            return DOWN
        return DEGRADED if failing else UP


def health_report() -> Report:
    """Run every check (the heartbeats are unknown while the cache is unreachable)."""
    database = check_database()
    cache_problem = check_cache()

    def heartbeat(name: str, what: str, max_age: int) -> str | None:
        if cache_problem is not None:
            return f"unknown: the cache is unreachable, so the {what} heartbeat is not read"
        return check_heartbeat(name, what, max_age)

    return Report(
        {
            "database": database,
            "cache": cache_problem,
            "broker": check_broker(),
            "sweep": heartbeat("sweep", "deadline sweep", settings.HEALTH_MAX_SWEEP_AGE),
            "worker": heartbeat("worker", "worker", settings.HEALTH_MAX_WORKER_AGE),
            "emails": check_failed_emails()
            if database is None
            else "unknown: the database is unreachable",
        }
    )


def bears_token(request: HttpRequest) -> bool:
    """True when the request carries HEALTH_TOKEN (never when none is set), compared in
    constant time."""
    expected: str = settings.HEALTH_TOKEN
    if not expected:
        return False
    header = request.headers.get("Authorization", "")
    given = header.removeprefix("Bearer ") if header.startswith("Bearer ") else ""
    given = given or request.GET.get("token", "")
    return hmac.compare_digest(given.encode(), expected.encode())


def may_see_details(request: HttpRequest, report: Report) -> bool:
    """Staff and token bearers see every check. Without a database no session can be read:
    then only the token shows them."""
    if bears_token(request):
        return True
    if report.problems["database"] is not None:
        return False
    return bool(request.user.is_authenticated and request.user.is_staff)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    status = report.status
    code = 503 if status == DOWN else 200
    if not may_see_details(request, report):
        return JsonResponse({"status": DOWN if status == DOWN else UP}, status=code)
    checks = {name: problem or "ok" for name, problem in report.problems.items()}
    return JsonResponse({"status": status, "checks": checks}, status=code)
