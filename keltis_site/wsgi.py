"""WSGI entry point for synchronous servers (e.g. gunicorn keltis_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "keltis_site.settings")

application = get_wsgi_application()
