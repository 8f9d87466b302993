"""ASGI entry point for asynchronous servers (e.g. uvicorn keltis_site.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")

application = get_asgi_application()
