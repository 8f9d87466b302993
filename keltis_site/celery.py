"""Celery application; reads every ``CELERY_*`` setting from Django settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")

app = Celery("keltis_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
