"""Who opens a stream, and what a stream holds until it ends.

The streams run without the pages' middleware (``live.handler``): the viewer is read here from
the session cookie, once, in the database pool (``live.db``); the address is the one allauth's
limits read. What a stream takes when it opens (its hub subscription, its place in the
visitor's limits) is given back by ``StreamBody`` however the stream ends: read to its end,
closed by Django, or dropped unread because the client went away before the first byte.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext as _

from games.ratelimit import client_ip

from .hub import Subscription, hub
from .limits import Refusal, address_key, limits


@dataclass
class Visitor:
    """Who holds a stream, filled in as the stream opens: what ``release`` gives back."""

    address: str
    user_id: int | None = None
    sub: Subscription | None = None

    def admit_user(self, user_id: int) -> Refusal | None:
        """Count the stream for its logged-in player too, or say why not (then it is counted
        for the address alone, and ``release`` gives back only that)."""
        refusal = limits.admit_user(user_id)
        if refusal is None:
            self.user_id = user_id
        return refusal

    def release(self) -> None:
        """Give back what the stream held: its subscription, its place in the limits."""
        if self.sub is not None:
            hub.unsubscribe(self.sub)
        limits.release(user_id=self.user_id, address=self.address)


def viewer_id(request: HttpRequest) -> int | None:
    """The logged-in player the session cookie names, or None: Django's own check (the
    session's auth hash against the user's password), run in the database pool."""
    if not hasattr(request, "session"):
        engine = import_module(settings.SESSION_ENGINE)
        request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    user = get_user(request)  # type: ignore[arg-type]
    return user.pk if user.is_authenticated else None


def visitor_address(request: HttpRequest) -> str:
    """The address the visitor's streams are counted under (``live.limits``)."""
    try:
        return address_key(client_ip(request))
    except PermissionDenied:  # no address at all (a proxy setting that does not fit)
        return "unknown"


def refused_text(refusal: Refusal) -> str:
    """Why a stream was refused, in the active language."""
    if refusal.reason == "opens":
        return _("Too many live updates opened in a short time. Please try again later.")
    return _("Too many pages with live updates are open. Close some and try again.")


def refused(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """429 with Retry-After: the page's script backs off and tries again; the text, in the
    visitor's language (cookie or browser: the streams run without the pages' middleware), is
    for a person reading the answer."""
    with translation.override(translation.get_language_from_request(request)):
        text = refused_text(refusal)
    response = HttpResponse(text, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(refusal.retry_after)
    return response


class StreamBody:
    """A stream's body for StreamingHttpResponse: its events, and ``done`` to call when it
    ends, which runs ``release`` exactly once whoever calls first. A generator that started
    calls it in its ``finally``; Django closes a response it sent (``close``); a client gone
    before the first byte leaves the body unread and unclosed, and the finalizer runs it when
    the body is collected. ``done`` holds no reference to the body (no cycle to wait for)."""

    def __init__(self, release: Callable[[], None]) -> None:
        self.done = weakref.finalize(self, release)
        self.events: AsyncIterator[str] | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        assert self.events is not None, "StreamBody.events is set before the response is sent"
        return self.events

    def close(self) -> None:
        self.done()
