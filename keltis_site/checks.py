"""Deployment checks (``manage.py check --deploy``): settings that keep state on one host.

The embedded default keeps the broker's queue, the cache and the emails on this machine's disk
under VAR_DIR (or in a process's memory): right for one machine (``scripts/serve``), wrong for a
site on more than one. A web server or worker on another machine, with its own VAR_DIR, would
have a cache of its own (a session logged out on one host still logged in on another, rate
limits counted per host, /healthz blind to the workers' heartbeats), a task queue of its own
(an action's emails never reaching a worker) and emails nobody receives. Production shares
PostgreSQL, Redis (broker and cache) and a mail server instead; these warnings name what does
not.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, register
from django.core.checks import Warning as CheckWarning

#: cache backends whose entries only the host (or process) that wrote them sees
HOST_CACHES = {
    "django.core.cache.backends.filebased.FileBasedCache": "in files on this host",
    "django.core.cache.backends.locmem.LocMemCache": "in each process's memory",
    "django.core.cache.backends.dummy.DummyCache": "nowhere (it keeps nothing)",
}
#: broker transports whose queue only this host (or process) sees
HOST_BROKERS = ("filesystem://", "memory://")
#: email backends that keep the emails on this host instead of sending them
HOST_EMAIL = {
    "django.core.mail.backends.filebased.EmailBackend": "writes them to files on this host",
    "django.core.mail.backends.console.EmailBackend": "prints them to this host's output",
    "django.core.mail.backends.locmem.EmailBackend": "keeps them in the process's memory",
    "django.core.mail.backends.dummy.EmailBackend": "drops them",
}


@register(deploy=True)
def check_shared_services(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A warning for each of cache, broker and email that lives on this host."""
    found: list[CheckMessage] = []
    cache = settings.CACHES["default"]
    if cache["BACKEND"] in HOST_CACHES:
        where = HOST_CACHES[cache["BACKEND"]]
        location = f" ({cache['LOCATION']})" if cache.get("LOCATION") else ""
        found.append(
            CheckWarning(
                f"CACHE_URL keeps the cache {where}{location}: every other web server or "
                "worker has its own, so a session logged out on one host stays logged in on "
                "the others, rate limits count per host and /healthz does not see the "
                "workers' heartbeats.",
                hint="Point CACHE_URL at the Redis every host shares, e.g. "
                "rediscache://redis:6379/1.",
                id="keltis_site.W001",
            )
        )
    broker: str = settings.CELERY_BROKER_URL
    if broker.startswith(HOST_BROKERS):
        found.append(
            CheckWarning(
                f"CELERY_BROKER_URL {broker.split('://')[0]}:// keeps the task queue on this "
                "host: tasks a web server queues on another host (an action's emails, the "
                "bots' turns) never reach this host's workers, nor its tasks theirs.",
                hint="Point CELERY_BROKER_URL at the Redis every host shares, e.g. "
                "redis://redis:6379/0.",
                id="keltis_site.W002",
            )
        )
    if settings.EMAIL_BACKEND in HOST_EMAIL:
        found.append(
            CheckWarning(
                f"EMAIL_URL sends no email, it {HOST_EMAIL[settings.EMAIL_BACKEND]}: players "
                "get no turn emails, and nobody can verify an address.",
                hint="Set EMAIL_URL to the mail server, e.g. "
                "smtp+tls://user:password@mail.example:587.",
                id="keltis_site.W003",
            )
        )
    return found
