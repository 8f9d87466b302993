"""Follow-up work that a web request finishes after its response has gone out.

An action's after-commit hooks queue Celery tasks (its emails, the bots' turn): half a
millisecond of publishing to the broker that the player need not wait for. While a request is
served, ``call_after_response`` keeps such calls until Django's ``request_finished`` signal,
which a WSGI server sends when it closes the response, after writing its last byte (gunicorn
and wsgiref do; Django's test client sends it before returning the response). Anywhere else
(Celery workers, commands, services called directly) the call runs at once.

Nothing more is at risk than before: a process that dies between its response and these calls
loses the same tasks as one that died just after the commit, and the periodic sweeps
(deliveries, bots) send and wake what was left.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.core.signals import request_finished, request_started

log = logging.getLogger(__name__)

_local = threading.local()


def call_after_response(func: Callable[..., Any], *args: Any) -> None:
    """``func(*args)`` once the present request's response is sent, or now outside a request.
    An exception is logged, never raised: the caller's work has been stored already."""
    pending: list[tuple[Callable[..., Any], tuple[Any, ...]]] | None = getattr(
        _local, "pending", None
    )
    if pending is None:
        _call(func, args)
    else:
        pending.append((func, args))


def _call(func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        func(*args)
    except Exception:
        log.exception("follow-up call %s failed", getattr(func, "__qualname__", func))


def _request_started(**kwargs: Any) -> None:
    _request_finished()  # calls of an earlier request whose response was never closed
    _local.pending = []


def _request_finished(**kwargs: Any) -> None:
    pending = getattr(_local, "pending", None)
    _local.pending = None
    for func, args in pending or ():
        _call(func, args)


STARTED_UID = "games.after_response.started"
request_started.connect(_request_started, dispatch_uid=STARTED_UID)
request_finished.connect(_request_finished, dispatch_uid="games.after_response.finished")
