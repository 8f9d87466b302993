"""Celery application; reads every ``CELERY_*`` setting from Django settings."""

import logging.config
import os
from typing import Any

from celery import Celery, signals, states

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")

app = Celery("keltis_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.setup_logging.connect
def configure_logging(**kwargs: Any) -> None:
    """Worker and beat log like the web processes: settings.LOGGING (JSON lines on stdout).

    With a receiver on this signal Celery leaves logging alone: it neither replaces the root
    logger's handlers with its own plain format nor redirects stdout. The level comes from
    LOG_LEVEL, not from ``--loglevel``.
    """
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@signals.task_prerun.connect
@signals.task_postrun.connect
def keep_or_close_connections(task: Any = None, state: str | None = None, **kwargs: Any) -> None:
    """Database connections between a worker's tasks, as Django treats them between requests
    (settings.CELERY_DB_REUSE_MAX): kept while usable and younger than CONN_MAX_AGE, closed
    outright after a task that did not succeed, whose connection may be broken in ways Django
    cannot see (a query cut short by a time limit). Eager tasks run inside their caller's
    transaction and are left alone, as Celery's own fix-up leaves them."""
    from django.db import close_old_connections, connections

    if task is None or getattr(task.request, "is_eager", False):
        return
    if state is None or state == states.SUCCESS:  # before the task, or after its success
        close_old_connections()
        return
    for connection in connections.all(initialized_only=True):
        connection.close()
