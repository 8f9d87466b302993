"""The site as the world outside reaches it: its name and its public address.

Emails are read far from the request that caused them (a worker sends turn emails; a proxy
may name the site differently to Django), so every address in an email is made from
settings.SITE_URL, never from a request's host, and the site names itself by
settings.SITE_NAME, never by a host and port.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def name() -> str:
    return str(settings.SITE_NAME)


def domain() -> str:
    """The host name of the public address (Message-IDs are made on it)."""
    return urlsplit(settings.SITE_URL).hostname or "localhost"


def absolute(path: str) -> str:
    """An address for an email: the site's public origin (settings.SITE_URL) and ``path``."""
    return f"{settings.SITE_URL}{path}"


def on_site(url: str) -> str:
    """``url`` (absolute, or a path) moved onto the public address: same path and query.

    allauth builds its emails' links from the request; this keeps their path and drops the
    host and port the request happened to name."""
    parts = urlsplit(url)
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return absolute(f"{parts.path}{query}{fragment}")
