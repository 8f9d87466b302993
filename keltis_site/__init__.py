"""Project package.

The Celery app is imported here so that it is loaded whenever Django starts, and
``@shared_task`` functions bind to it (as the Celery docs for Django recommend).
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
