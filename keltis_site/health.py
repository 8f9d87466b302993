"""GET /healthz: whether this instance can serve, for a load balancer or a monitor.

Checks the database, the Celery broker, and the heartbeats periodic work leaves in the cache:
the deadline sweep (run by a worker on beat's schedule, every minute) and the worker heartbeat
(a task beat queues every 30 s). Heartbeats are only visible across processes when the cache
is shared (CACHE_URL=rediscache://...); with the per-process default cache the heartbeat
checks fail in a web process. Answers 200 with {"ok": true, "checks": {...}} when every check
passes, else 503 with each failing check described in plain words.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

BROKER_TIMEOUT = 1.0  # seconds


def check_database() -> str | None:
    """None when a trivial query answers, else what went wrong."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"database unreachable: {exc.__class__.__name__}: {exc}"
    return None


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


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    failures = {
        "database": check_database(),
        "broker": check_broker(),
        "sweep": check_heartbeat("sweep", "deadline sweep", settings.HEALTH_MAX_SWEEP_AGE),
        "worker": check_heartbeat("worker", "worker", settings.HEALTH_MAX_WORKER_AGE),
    }
    checks = {name: problem or "ok" for name, problem in failures.items()}
    ok = all(problem is None for problem in failures.values())
    return JsonResponse({"ok": ok, "checks": checks}, status=200 if ok else 503)
