"""Log formatters: one line per event, JSON in production, readable text locally.

Why our own formatter and not python-json-logger: what it has to do is small (the record's
standard fields, the ``extra={...}`` fields callers pass, the Celery task and gunicorn's access
fields) and a few dozen lines of stdlib code need no dependency to keep current. Django,
gunicorn (``gunicorn.conf.py``), the Celery worker and beat (``keltis_site.celery``) all use
``settings.LOGGING``, so every process writes the same format to stdout.

A JSON line has ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, ``process``, then
the caller's extra fields (e.g. ``game_id``), ``task_id``/``task_name`` inside a Celery task,
and ``exception`` with the traceback when there is one.

The secrets some paths carry are masked in every line, whichever logger wrote it (gunicorn's
access line, Django's "Bad Request: /t/…" warning, a traceback): see ``mask_secrets``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

#: attributes every LogRecord has; anything else on a record came from ``extra={...}``
_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
    | {"message", "asctime", "taskName"}
)

#: gunicorn's access-log atoms (its record's args) kept as named fields
_ACCESS_FIELDS = {
    "m": "method",
    "U": "path",
    "q": "query",
    "s": "status",
    "B": "bytes",
    "M": "duration_ms",
    "h": "remote_addr",
    "a": "user_agent",
}


#: how many characters of a secret a log line keeps: enough to see which kind of link it was
#: (an action token starts ".eJy", an unsubscribe token "Wz"), far too few to use one
MASK_KEEP = 6
#: paths whose next segment is a secret that works without a login: the signed tokens of emailed
#: links (notifications/urls.py: /t/<token>/, /email/unsubscribe/<token>/) and allauth's emailed
#: keys (address confirmation, password reset). tests/site/test_logging.py builds these paths
#: with reverse(), so a route that moves fails there.
_SEGMENT_CHAR = r"[^/?#\s\"'<>\\]"
_SECRET_SEGMENT = re.compile(
    r"(/(?:t|email/unsubscribe|accounts/confirm-email|accounts/password/reset/key)/)"
    rf"({_SEGMENT_CHAR}{{{MASK_KEEP}}}){_SEGMENT_CHAR}+"
)


def mask_secrets(text: str) -> str:
    """``text`` with each secret path segment cut to its first ``MASK_KEEP`` characters and
    "…": /t/.eJyLjk…/ instead of a token that would act for its player. Applied to whole
    formatted lines, so the message, every field and a traceback are covered alike."""
    return _SECRET_SEGMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}…", text)


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a caller attached with ``extra={...}``, plus context known at log time."""
    fields = {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
    if record.name == "gunicorn.access" and isinstance(record.args, Mapping):
        for atom, name in _ACCESS_FIELDS.items():
            value = record.args.get(atom)
            if value not in (None, "-", ""):
                fields[name] = value
    task = _current_task()
    if task is not None:
        fields.setdefault("task_id", task[0])
        fields.setdefault("task_name", task[1])
    return fields


def _current_task() -> tuple[str, str] | None:
    """The id and name of the Celery task this thread runs, if any."""
    from celery import current_task

    try:
        request_id = current_task.request.id if current_task else None
    except Exception:  # no app or task context: nothing to add
        return None
    return (request_id, current_task.name) if request_id else None


class JsonFormatter(logging.Formatter):
    """One JSON object per line; values JSON cannot hold are written as their str()."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        for key, value in extra_fields(record).items():
            entry.setdefault(key, value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return mask_secrets(json.dumps(entry, default=str, ensure_ascii=False))


class PlainFormatter(logging.Formatter):
    """``time LEVEL logger: message key=value ...``, for a developer's terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = extra_fields(record)
        if not fields:
            return mask_secrets(line)
        head, sep, tail = line.partition("\n")  # a traceback stays below the fields
        pairs = " ".join(f"{key}={value}" for key, value in fields.items())
        return mask_secrets(f"{head} {pairs}{sep}{tail}")
