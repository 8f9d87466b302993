"""gunicorn's settings for the web service: the Docker image's CMD and ``scripts/serve`` (the
embedded default, LOCAL_SERVE) both read this file.

Production: sync workers. Every request is short (a page, or one action under a row lock), so a
process per request in flight is the simple, robust model. The embedded default on SQLite
differs in where it listens and how many it runs (below). The numbers come from the
environment so an operator can size them to the machine without a new image.
"""

from __future__ import annotations

import gc
import os
from typing import Any

from keltis_site import settings

wsgi_app = "keltis_site.wsgi:application"
# The embedded default (scripts/serve) serves this machine only, on PORT; the image listens on
# every interface of its container.
bind = os.environ.get(
    "GUNICORN_BIND", f"127.0.0.1:{settings.PORT}" if settings.LOCAL_SERVE else "0.0.0.0:8000"
)

# Worker processes: WEB_CONCURRENCY (gunicorn's own convention), default 3, enough for a small
# site on 2 cores; each is a full Django process (~60-80 MB).
workers = int(os.environ.get("WEB_CONCURRENCY", "2" if settings.LOCAL_SERVE else "3"))
# The embedded default: 2 processes of 4 threads each (gthread), on SQLite and the 2 cores it
# shares with the Celery worker and the stream server. A page is mostly Python holding the GIL,
# so processes, not threads, use the cores: two, one per core, leaving the worker room. The
# threads are for waiting: a request waiting for SQLite's write lock (one writer at a time,
# settings: WAL, BEGIN IMMEDIATE, a 20 s busy timeout) or on the file cache does not stop its
# process, and a short page is served beside a long one (a long history, a bot's analysis)
# instead of behind it. Each thread keeps its own SQLite connection (Django's are per thread);
# WAL lets them all read while one writes. What kept players waiting under runserver (issue
# 31: 13 requests over 30 s) is its listen queue of 10 connections: past it the kernel drops
# a new connection, and the client tries again 1, 3, 7, 15 and 31 s later. A burst of 40
# clients x 50 pages (2026-11-28): runserver had 418 connections dropped and its slowest page
# took 14.6 s; this, with gunicorn's queue of 2048, none dropped and 1.5 s at most.
# GUNICORN_THREADS changes the threads (1 is a sync worker).
if settings.LOCAL_SERVE:
    threads = int(os.environ.get("GUNICORN_THREADS", "4"))
    worker_class = "gthread" if threads > 1 else "sync"
# A worker silent this long is killed and replaced: no request here legitimately takes 30 s.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# On SIGTERM (docker stop, a deploy) requests in flight get this long to finish; docker's own
# stop timeout (10 s by default) should be at least as long, see docker-compose.yml.
graceful_timeout = 20
# Used by threaded workers only (the embedded default's): a sync worker answers one request per
# connection (a threaded worker measured no faster in bench/scale.py, one client at a time).
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
# the same line, without building the atoms of every header the format does not use
logger_class = "keltis_site.access_log.AccessLogger"
loglevel = settings.LOG_LEVEL.lower()
logconfig_dict = settings.LOGGING


# Python's cycle collector, between requests rather than inside them. Left to itself it paused
# about one request in fifteen for 1-3 ms and a few for up to 40 ms (bench/scale.py measured 240
# ms of collections in 620 requests). After the app is loaded its objects are frozen (never
# scanned again) and automatic collection is off; after each response has been sent, the young
# generation is collected, the middle one every 10 requests and all of them every 100: the
# same work, done while no client waits. A request's cyclic garbage lives until its end.
# What survives a full collection is frozen as well: a worker's first requests load modules,
# templates and catalogues that live as long as it does, and scanning them again in every full
# collection took 23 ms a time (0.23 ms a request; frozen, 4 ms on average: timed in a worker
# serving bench/scale.py's requests, 2026-11-26). Cyclic garbage made of frozen objects is never
# collected: it is bounded by the worker's replacement after max_requests.
GC_MIDDLE_EVERY = 10
GC_FULL_EVERY = 100


def post_worker_init(worker: Any) -> None:
    gc.collect()
    gc.freeze()
    gc.disable()
    worker.requests_served = 0


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    worker.requests_served = served = getattr(worker, "requests_served", 0) + 1
    if served % GC_FULL_EVERY == 0:
        gc.collect(2)
        gc.freeze()
    elif served % GC_MIDDLE_EVERY == 0:
        gc.collect(1)
    else:
        gc.collect(0)
