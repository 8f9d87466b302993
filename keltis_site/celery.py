"""Celery application; reads every ``CELERY_*`` setting from Django settings."""

import logging.config
import os
from typing import Any

from celery import Celery, signals

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
