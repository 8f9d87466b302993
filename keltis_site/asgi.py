"""ASGI entry point: the live pages' stream server (``uvicorn keltis_site.asgi:application``).

The pages are served by gunicorn (WSGI); this process serves the same Django project for its
long-lived Server-Sent Events streams (live.views), with the hub's lifespan (live.asgi).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")

django_application = get_asgi_application()

from live.asgi import with_live  # noqa: E402  (Django is set up first)

application = with_live(django_application)
