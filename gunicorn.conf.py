"""gunicorn's settings for the web service (the Docker image's CMD reads this file).

Sync workers: every request is short (a page, or one action under a row lock), so a process per
request in flight is the simple, robust model. The numbers come from the environment so an
operator can size them to the machine without a new image.
"""

from __future__ import annotations

import os

from keltis_site import settings

wsgi_app = "keltis_site.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")

# Worker processes: WEB_CONCURRENCY (gunicorn's own convention), default 3, enough for a small
# site on 2 cores; each is a full Django process (~60-80 MB).
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
# A worker silent this long is killed and replaced: no request here legitimately takes 30 s.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# On SIGTERM (docker stop, a deploy) requests in flight get this long to finish; docker's own
# stop timeout (10 s by default) should be at least as long, see docker-compose.yml.
graceful_timeout = 20
# Used by threaded workers only: a sync worker answers one request per connection (a threaded
# worker measured no faster in bench/scale.py, one client at a time).
keepalive = 5
# Replace each worker after about this many requests, so a slow leak cannot grow unbounded;
# the jitter keeps the workers from restarting all at once.
max_requests = 1000
max_requests_jitter = 100
# The workers' heartbeat files: in memory, not on the container's overlay file system, whose
# stalls gunicorn would take for hung workers.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# Recent gunicorn opens a control socket under $HOME for its gunicornc tool; nothing here uses it,
# and the image's user has no home to put it in. (Older versions ignore the setting.)
control_socket_disable = True

# Logs: gunicorn's own (master, workers, one access line per request) go through the same
# configuration as Django's, so the web service writes nothing but JSON lines (LOG_FORMAT).
accesslog = "-"
loglevel = settings.LOG_LEVEL.lower()
logconfig_dict = settings.LOGGING
